// The review page in a real browser (Debian's chromium, headless) against the
// real stack: sign in with a token, read the list of staged operations (which
// fits a 1280 px window), see a staged link repair as a before/after table
// with each entry's date, reference and open amount and every amount's
// currency, see as its creator why it cannot approve (no Approve button),
// approve as another actor, apply, see `applied`; the reconciliation,
// reversal and duplicate views too; stage a duplicate resolution from the
// duplicates view and review it, and review a staged statement import. Every
// view: axe-core finds no serious or critical violation, a screenshot is kept
// as a test artefact (test-artifacts/screenshots/<run>/review-<view>.png, the
// folder printed once at the end), and the page asks nothing of any origin
// but its own. docs/guide/review-page.md.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Books } from '../helpers/books.js';
import type { LinkRepairData, ReconcileData, ReversalData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { approve } from '../helpers/staged.js';
import { readdirSync } from 'node:fs';
import { chromiumPath, launch, SKIP_MESSAGE } from './chromium.js';
import { KEPT_RUNS, SCREENSHOT_ROOT, screenshot, screenshotRunDir, seriousViolations } from './page-checks.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

const REPAIR = '/api/v1/cli/bank-matches/ledger-link-repair/stage';
const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';

interface World {
  books: Books;
  repairId: string;
  reconcileId: string;
  reversalId: string;
  txn: string;
  older: string;
  newer: string;
  wrongLink: string;
  reversedEntry: string;
  /** The duplicate pair (same file): `invoice.pdf`, then `invoice (1).pdf`. */
  docs: [string, string];
  /** An account a statement file is imported into; it already holds the file's fee (bank reference R-2). */
  importAccount: string;
  feeTxn: string;
  erin: string;
  bob: string;
  /** A payment of two invoices on an account of its own (counterparty m: outside the repair's scope). */
  match: { account: string; txn: string; entries: [string, string] };
}

/** Books with one of each kind staged by erin (who may approve, but not her own), and one duplicate pair in the inbox. */
async function world(): Promise<World> {
  const s = await stack();
  const books = new Books();
  const account = books.account();
  const older = books.invoice(1_000, { entry_date: '2026-02-01' });
  const newer = books.invoice(1_000, { entry_date: '2026-02-05' });
  const txn = books.txn(account, 1_000, { booking_date: '2026-02-10' });
  const wrongLink = books.link(txn, newer, 1_000);
  // A second account for the reconciliation and a paid invoice for the reversal, outside the repair's scope.
  const other = books.account({ name: 'Savings' });
  const paid = books.linkedTxn(other, 12_050, { counterparty_id: books.cp('b'), booking_date: '2026-02-12' });
  const reversed = books.linkedTxn(other, -4_500, { counterparty_id: books.cp('c'), booking_date: '2026-02-14' });
  const file = {
    sha256: createHash('sha256').update(books.uid).digest('hex'),
    name: 'invoice.pdf',
    size: 1000,
    mime: 'application/pdf',
  };
  const docs: [string, string] = [
    books.doc({
      file,
      extracted: { vendor_name: 'Paper Co', invoice_number: 'INV-7', total_minor: 9_900, currency: 'EUR' },
    }),
    books.doc({
      file: { ...file, name: 'invoice (1).pdf' },
      received_at: '2026-02-02T09:00:00.000Z',
      extracted: { vendor_name: 'Paper Co', invoice_number: 'INV-7', total_minor: 9_900, currency: 'EUR' },
    }),
  ];
  const importAccount = books.account({ name: 'Import account' });
  const feeTxn = books.txn(importAccount, -2_000, {
    booking_date: '2026-02-21',
    bank_reference: 'R-2',
    counterparty_name: 'Bank',
    remittance_info: 'fee',
  });
  const matchAccount = books.account({ name: 'Match account' });
  const matchEntries: [string, string] = [
    books.invoice(12_000, { counterparty_id: books.cp('m'), entry_date: '2026-02-03' }),
    books.invoice(18_000, { counterparty_id: books.cp('m'), entry_date: '2026-02-04' }),
  ];
  const matchTxn = books.txn(matchAccount, 30_000, {
    counterparty_id: books.cp('m'),
    booking_date: '2026-02-20',
    remittance_info: 'two invoices',
  });
  await s.load(books.file);

  const erin = await s.token(
    books.orgId,
    ['bank:stage', 'ledger:stage', 'staged:read', 'staged:approve', 'staged:apply', 'inbox:read'],
    'erin',
  );
  const bob = await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply', 'inbox:read'], 'bob');
  const repair = await call<LinkRepairData>('POST', REPAIR, {
    token: erin,
    body: { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-02-28' },
  });
  expect(repair.status, JSON.stringify(repair.body)).to.equal(201);
  const reconcile = await call<ReconcileData>('POST', RECONCILE, {
    token: erin,
    body: {
      bank_account_id: other,
      statement: { end_date: '2026-02-13', closing_balance_minor: 12_050, currency: 'EUR' },
      transaction_ids: [paid.txn],
    },
  });
  expect(reconcile.status, JSON.stringify(reconcile.body)).to.equal(201);
  const reversal = await call<ReversalData>('POST', `/api/v1/cli/ledger/entries/${reversed.entry}/reverse/stage`, {
    token: erin,
    body: { reversal_date: '2026-03-01', reason: 'booked twice' },
  });
  expect(reversal.status, JSON.stringify(reversal.body)).to.equal(201);
  return {
    books,
    repairId: repair.body.data.staged_operation_id,
    reconcileId: reconcile.body.data.staged_operation_id,
    reversalId: reversal.body.data.staged_operation_id,
    txn,
    older,
    newer,
    wrongLink,
    reversedEntry: reversed.entry,
    docs,
    importAccount,
    feeTxn,
    erin,
    bob,
    match: { account: matchAccount, txn: matchTxn, entries: matchEntries },
  };
}

describe('the review page in a browser (GET /review)', function () {
  this.timeout(90_000);
  let browser: Browser | null = null;
  let context: BrowserContext;
  let page: Page;
  let w: World;
  let baseUrl: string;
  const requested: string[] = [];
  const cspReports: string[] = [];

  before(async function () {
    const executable = chromiumPath();
    if (!executable) {
      console.log(`      ${SKIP_MESSAGE}`);
      this.skip();
    }
    baseUrl = (await stack()).baseUrl;
    w = await world();
    browser = await launch(executable);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('request', (r) => requested.push(r.url()));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspReports.push(m.text());
    });
  });

  after(async () => {
    await browser?.close();
    // Once, where a person finds every view of this run (docs/guide/review-page.md "Tests").
    const dir = screenshotRunDir();
    if (dir) console.log(`      screenshots of this run: ${dir}`);
  });

  async function signIn(token: string): Promise<void> {
    await page.goto(`${baseUrl}/review`);
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('link', { name: 'Staged operations' }).waitFor();
  }

  async function checkView(name: string): Promise<void> {
    expect(await seriousViolations(page), `axe on ${name}`).to.deep.equal([]);
    await screenshot(page, name);
  }

  it('is served with a CSP that allows only its own origin, and no cookies', async () => {
    const res = await fetch(`${baseUrl}/review`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp)
      .to.include("default-src 'none'")
      .and.include("script-src 'self'")
      .and.include("style-src 'self'")
      .and.include("connect-src 'self'");
    expect(csp).to.not.match(/unsafe-inline|unsafe-eval|https?:/);
    expect(res.headers.get('set-cookie')).to.equal(null);
    const html = await res.text();
    expect(html).to.not.match(/<script(?![^>]*\bsrc=")[^>]*>|style="/);
  });

  it('asks for a token once, keeps it in sessionStorage only, and lists the staged operations newest first', async () => {
    await page.goto(`${baseUrl}/review`);
    await page.getByLabel('API token').waitFor();
    await checkView('sign-in');
    await signIn(w.erin);
    expect(page.url()).to.not.include(w.erin);
    expect(await page.evaluate('sessionStorage.getItem("bookstage.token")')).to.equal(w.erin);
    expect(await context.cookies()).to.deep.equal([]);
    const rows = page.locator('table tbody tr');
    await rows.first().waitFor();
    const ids = await page.locator('table tbody tr td:first-child').allTextContents();
    expect(ids.slice(0, 3)).to.deep.equal([w.reversalId, w.reconcileId, w.repairId]);
    const repairRow = rows.filter({ hasText: w.repairId });
    expect(await repairRow.locator('td').allTextContents()).to.include.members([
      'Link repair',
      'staged',
      `account ${w.books.file.bank_accounts[0]!.id}, counterparty ${w.books.cp('a')}`,
      '1 move, 0 new links, 0 unlinks',
      'erin',
    ]);
    // The list fits a 1280 px window: its table needs no horizontal scrolling, the page none either, and the last column is in view.
    expect(
      await page.evaluate(
        "(() => { const e = document.querySelector('#operations .table-wrap'); return e.scrollWidth - e.clientWidth; })()",
      ),
    ).to.equal(0);
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).to.equal(
      0,
    );
    const expires = await page.getByRole('columnheader', { name: 'Expires' }).boundingBox();
    expect(expires!.x + expires!.width).to.be.at.most(1280);
    await checkView('list');

    await page.getByLabel('Kind').selectOption('ledger_reversal');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('table tbody tr', { hasText: w.reversalId }).waitFor();
    expect(await page.locator('table tbody tr').count()).to.equal(1);
  });

  it("shows the staged repair as a before/after table whose rows give each entry's date, reference, description and open amount, every amount with its currency", async () => {
    await page.goto(`${baseUrl}/review#/operation/${w.repairId}`);
    const table = page.getByRole('table', { name: `Bank transaction ${w.txn}` });
    await table.waitFor();
    const moved = table.locator('tbody tr.moved');
    const cells = await moved.locator('td').allTextContents();
    expect(cells[0]).to.equal('moved');
    // Linked now: the newer invoice (5 Feb) by its link; after the plan: the older one (1 Feb), the oldest open entry.
    expect(cells[1]).to.equal(
      `${w.newer}2026-02-05 · REF-${w.newer} · Invoice ${w.newer} · open 10.00 EURlink ${w.wrongLink}`,
    );
    expect(cells[2]).to.equal(`${w.older}2026-02-01 · REF-${w.older} · Invoice ${w.older} · open 10.00 EUR`);
    expect(cells[3]).to.equal('10.00 EUR');
    expect(cells[4]).to.equal('#1 of 2 open, oldest first; open 10.00 EUR → 0.00 EUR');
    // The operation's amount beside its kind: the one link it moves.
    expect(await page.locator('#op-title').textContent()).to.match(/^Link repair stg_\w+ · 10\.00 EUR$/);
    expect(await page.getByTestId('amount').textContent()).to.equal('10.00 EUR');
    expect(await page.locator('main').textContent())
      .to.include(`${w.txn}: booked 2026-02-10 · 10.00 EUR · Customer A`)
      .and.not.include('in the currency of account');
    expect(await page.getByTestId('status').textContent()).to.equal('staged');
    await checkView('repair');
  });

  it('tells the creator why it cannot approve its own operation instead of showing an Approve button the API would refuse', async () => {
    await page.goto(`${baseUrl}/review#/operation/${w.repairId}`);
    await page.getByTestId('why-no-approve').waitFor();
    expect(await page.getByTestId('why-no-approve').textContent())
      .to.include('You (erin) staged this operation')
      .and.include('another person to approve it');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).to.equal(0);
    // Reject is still hers to use; and the API indeed refuses her approval (a refusal changes nothing).
    expect(await page.getByRole('button', { name: 'Reject' }).count()).to.equal(1);
    const direct = await approve(w.erin, w.repairId);
    expect(direct.status).to.equal(403);
    expect(direct.body.error.code).to.equal('self_approval_forbidden');
    expect(await page.getByTestId('status').textContent()).to.equal('staged');
    await checkView('repair-creator');
  });

  it('names the way back after where it leads: the staged operations list', async () => {
    await page.goto(`${baseUrl}/review#/operation/${w.repairId}`);
    await page.getByRole('link', { name: '← Staged operations' }).click();
    await page.getByRole('heading', { name: 'Staged operations' }).waitFor();
    expect(await page.getByRole('link', { name: /Inbox/ }).count()).to.equal(0);
  });

  it('another actor approves, then applies: pending is shown, then `applied` with what was written', async () => {
    await page.evaluate('sessionStorage.clear()');
    await signIn(w.bob);
    await page.goto(`${baseUrl}/review#/operation/${w.repairId}`);
    await page.getByLabel('Note (required to reject)').fill('FIFO is right');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approve: done. Status is now approved.').waitFor();
    expect(await page.getByTestId('status').textContent()).to.equal('approved');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).to.equal(0);

    // Record every text the outcome area shows, so that a fast apply's "pending" is not missed.
    await page.evaluate(`window.__seen = []; new MutationObserver(() => { const o = document.getElementById('outcome'); if (o) window.__seen.push(o.textContent); })
      .observe(document.getElementById('main'), { childList: true, subtree: true, characterData: true })`);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Apply: done. Status is now applied.').waitFor();
    expect(await page.evaluate('window.__seen')).to.include('Apply: pending…');
    expect(await page.getByTestId('status').textContent()).to.equal('applied');
    const history = await page
      .getByRole('table', { name: 'Who did what' })
      .locator('tbody tr td:nth-child(2)')
      .allTextContents();
    expect(history).to.deep.equal(['erin', 'bob', 'bob', 'bob']);
    expect(await page.getByRole('table', { name: 'Who did what' }).textContent()).to.include('FIFO is right');
    expect(await page.getByRole('button', { name: /Approve|Reject|Apply/ }).count()).to.equal(0);
    // The moved link: its old id → the id of the link apply wrote, which the apply result lists among its inserts.
    const moved = (await page.getByTestId('new-link').textContent())!;
    const match = new RegExp(`^link ${w.wrongLink} → (lnk_\\w+)$`).exec(moved);
    expect(match, moved).to.not.equal(null);
    expect(await page.getByRole('table', { name: 'What apply wrote' }).textContent()).to.include(
      `insertbank_links${match![1]}`,
    );
    await checkView('repair-applied');
  });

  it('offers "Stage a revert" on the applied repair to a token that may stage it, and shows the revert record by record', async () => {
    // bob may not stage a repair: no button for him.
    expect(await page.getByTestId('stage-revert').count()).to.equal(0);
    await page.evaluate('sessionStorage.clear()');
    await signIn(w.erin);
    await page.goto(`${baseUrl}/review#/operation/${w.repairId}`);
    await page.getByTestId('stage-revert').click();
    const link = page.getByTestId('revert-outcome').getByRole('link');
    await link.waitFor();
    const revertId = (await link.textContent())!;
    expect(revertId).to.match(/^stg_/);
    await link.click();
    const changes = page.getByRole('table', { name: 'What comes back, record by record' });
    await changes.waitFor();
    expect(await page.getByTestId('status').textContent()).to.equal('staged');
    // The wrong link comes back to the newer invoice, at its amount; the link the repair wrote is removed.
    expect(await page.getByTestId(`change-${w.wrongLink}`).textContent()).to.include('restored');
    expect(await page.getByTestId(`change-${w.wrongLink}`).textContent()).to.include(w.newer);
    expect(await changes.textContent()).to.include('removed');
    await checkView('revert');
  });

  it('shows a reconciliation (statement, transactions, checks, resulting reconciled_through) and a reversal (entries side by side, links released)', async () => {
    await page.goto(`${baseUrl}/review#/operation/${w.reconcileId}`);
    await page.getByRole('table', { name: 'Transactions it marks reconciled' }).waitFor();
    expect(await page.locator('main').textContent())
      .to.include('reconciled_through')
      .and.include('2026-02-13, balance 120.50 EUR')
      .and.include('Checks passed');
    await checkView('reconcile');

    await page.goto(`${baseUrl}/review#/operation/${w.reversalId}`);
    await page.getByRole('table', { name: 'Lines of the reversing entry' }).waitFor();
    // The original entry's own date and description, from the context read at staging.
    const reversed = w.books.file.ledger_entries.find((e) => e.id === w.reversedEntry)!;
    const original = await page.locator('.side-by-side > div').first().textContent();
    expect(original).to.include(`Date${reversed.entry_date}`).and.include(`Description${reversed.description}`);
    expect(await page.getByRole('table', { name: 'Bank links released' }).locator('tbody tr').count()).to.equal(1);
    expect(await page.getByRole('table', { name: 'Lines of the reversing entry' }).textContent()).to.include(
      '45.00 EUR',
    );
    await checkView('reversal');
  });

  it('shows the duplicate overview with the rule, the documents side by side with their file, vendor, invoice and total, and the ways to resolve a group', async () => {
    await page.getByRole('link', { name: 'Duplicates' }).click();
    const group = page.locator('.group').first();
    await group.waitFor();
    expect(await group.locator('article').count()).to.equal(2);
    const text = await group.textContent();
    expect(text).to.include('Rule: same file');
    expect(text).to.include('invoice.pdf (application/pdf, 1000 B)').and.include('invoice (1).pdf');
    expect(text).to.include('VendorPaper Co').and.include('InvoiceINV-7').and.include('Total99.00 EUR');
    // bob's token cannot stage a resolution: the page says so rather than offer buttons that fail.
    expect(await group.locator('.note').textContent()).to.include('needs a token with inbox:stage');
    await checkView('duplicates');
  });

  it('offers both resolutions of a group to a token that may stage them; "archive duplicates" keeping the chosen document stages an operation and archives nothing yet', async () => {
    const s = await stack();
    const carol = await s.token(w.books.orgId, ['staged:read', 'inbox:read', 'inbox:stage'], 'carol');
    await page.evaluate('sessionStorage.clear()');
    await signIn(carol);
    await page.getByRole('link', { name: 'Duplicates' }).click();
    const group = page.locator('.group').first();
    await group.waitFor();
    const archive = group.getByRole('button', { name: 'Stage: keep the chosen document, archive the others' });
    expect(await archive.count()).to.equal(1);
    expect(await group.getByRole('button', { name: 'Stage: these are not duplicates' }).count()).to.equal(1);
    expect(await group.getByRole('radio').count()).to.equal(2);
    await checkView('duplicates-resolve');

    // Keep the copy (not the preselected canonical document): the other one is to be archived.
    const [archived, kept] = w.docs;
    await group.getByLabel(`Keep ${kept} (invoice (1).pdf)`).check();
    await archive.click();
    const review = group.getByRole('link', { name: /^Review operation stg_/ });
    await review.waitFor();
    expect(await group.locator('.outcome').textContent()).to.include(
      'Archive duplicates: staged for review, nothing changed yet.',
    );
    const id = (await review.textContent())!.replace('Review operation ', '');
    const op = await call<{
      kind: string;
      status: string;
      created_by: string;
      plan: { resolution: string; keep_document_id: string; member_ids: string[] };
    }>('GET', `/api/v1/cli/staged-operations/${id}`, { token: carol });
    expect(op.status, JSON.stringify(op.body)).to.equal(200);
    expect(op.body.data).to.include({ kind: 'inbox_duplicates_resolve', status: 'staged', created_by: 'carol' });
    expect(op.body.data.plan).to.deep.include({ resolution: 'archive_duplicates', keep_document_id: kept });
    expect([...op.body.data.plan.member_ids].sort()).to.deep.equal([...w.docs].sort());
    const reader = await s.token(w.books.orgId, ['books:read']);
    for (const doc of w.docs) {
      const read = await call<{ status: string }>('GET', `/api/v1/cli/bookkeeping/inbox/documents/${doc}`, {
        token: reader,
      });
      expect(read.status).to.equal(200);
      expect(read.body.data.status, doc).to.not.equal('archived');
    }

    // Its review view: the kept document first, then the archived one, each with its facts.
    await review.click();
    const members = page.getByRole('table', { name: 'Documents of the group' });
    await members.waitFor();
    expect(await page.getByTestId('status').textContent()).to.equal('staged');
    const rows = await Promise.all(
      (await members.locator('tbody tr').all()).map((row) => row.locator('td').allTextContents()),
    );
    expect(rows).to.deep.equal([
      [
        kept,
        'kept',
        '2026-02-02 09:00 UTC',
        'invoice (1).pdf (application/pdf, 1000 B)',
        'Paper Co',
        'INV-7',
        '99.00 EUR',
      ],
      [
        archived,
        `archived (duplicate of ${kept})`,
        rows[1]![2],
        'invoice.pdf (application/pdf, 1000 B)',
        'Paper Co',
        'INV-7',
        '99.00 EUR',
      ],
    ]);
    expect(rows[1]![2]).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    await checkView('inbox-resolve');
  });

  it('shows a staged statement import: the new transactions and the skipped ones with the reason and the transaction they match, every amount with its currency', async () => {
    const s = await stack();
    const csv = 'date,amount,name,text,ref\n2026-02-20,250.00,Alpha GmbH,inv 1,R-1\n2026-02-21,-20.00,Bank,fee,R-2\n';
    const res = await fetch(
      `${s.baseUrl}/api/v1/cli/bank-accounts/${w.importAccount}/statements/import/stage?format=csv&date_column=date&amount_column=amount&counterparty_column=name&remittance_column=text&reference_column=ref`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${w.erin}`, 'content-type': 'text/csv' },
        body: csv,
      },
    );
    const staged = (await res.json()) as {
      data: { staged_operation_id: string; plan: { new_transactions: Array<{ id: string }> } };
    };
    expect(res.status, JSON.stringify(staged)).to.equal(201);
    const newId = staged.data.plan.new_transactions[0]!.id;

    await page.evaluate('sessionStorage.clear()');
    await signIn(w.bob);
    await page.goto(`${baseUrl}/review#/operation/${staged.data.staged_operation_id}`);
    const added = page.getByRole('table', { name: 'New transactions (1)' });
    await added.waitFor();
    expect(await page.getByTestId('status').textContent()).to.equal('staged');
    expect(await added.locator('tbody tr td').allTextContents()).to.deep.equal([
      '2026-02-20',
      '250.00 EUR',
      'Alpha GmbH (no known counterparty)',
      'inv 1',
      'R-1',
      newId,
    ]);
    const skipped = page.getByRole('table', { name: 'Skipped (1)' });
    expect(await skipped.locator('tbody tr td').allTextContents()).to.deep.equal([
      '2026-02-21',
      '−20.00 EUR',
      'R-2',
      'same bank reference',
      w.feeTxn,
    ]);
    await checkView('statement-import');
  });

  it('shows a staged period close: the day it closes through, the lock date it replaces and the records of the period', async () => {
    const s = await stack();
    const closer = await s.token(w.books.orgId, ['policy:stage', 'staged:read'], 'carla');
    const staged = await call<{ staged_operation_id: string; plan: { entries: number; bank_transactions: number } }>(
      'POST',
      '/api/v1/cli/periods/close/stage',
      {
        token: closer,
        // Everything pending in this org books after it (the reconciliation ends 2026-02-13).
        body: { through: '2026-02-10', note: 'early February' },
      },
    );
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);

    await page.evaluate('sessionStorage.clear()');
    await signIn(w.bob);
    await page.goto(`${baseUrl}/review#/operation/${staged.body.data.staged_operation_id}`);
    const heading = page.getByRole('heading', { name: 'Period close: every day through 2026-02-10' });
    await heading.waitFor();
    const facts = page.locator('section[aria-labelledby="plan-h"] dl.facts');
    expect(await facts.locator('dt').allTextContents()).to.deep.equal([
      'Closes through',
      'Lock date now',
      'Ledger entries in the period',
      'Bank transactions in the period',
      'Note',
    ]);
    // The counts are the plan's: what this world's earlier tests booked on or before 2026-02-10.
    const { entries, bank_transactions } = staged.body.data.plan;
    expect(entries).to.be.at.least(4);
    expect(await facts.locator('dd').allTextContents()).to.deep.equal([
      '2026-02-10',
      'none',
      String(entries),
      String(bank_transactions),
      'early February',
    ]);
    await checkView('period-close');
  });

  it('shows a staged bank match: each pair with its transaction and entry, and what each has open before and after', async () => {
    const [e1, e2] = w.match.entries;
    const staged = await call<{ staged_operation_id: string }>('POST', '/api/v1/cli/bank-matches/match/stage', {
      token: w.erin,
      body: {
        bank_account_id: w.match.account,
        matches: [
          { bank_transaction_id: w.match.txn, ledger_entry_id: e1, amount_minor: 12_000 },
          { bank_transaction_id: w.match.txn, ledger_entry_id: e2, amount_minor: 18_000 },
        ],
      },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    await page.goto(`${baseUrl}/review#/operation/${staged.body.data.staged_operation_id}`);
    const pairs = page.getByRole('table', { name: 'Pairs: each becomes one link' });
    await pairs.waitFor();
    expect(await pairs.locator('tbody tr').count()).to.equal(2);
    expect(await pairs.textContent())
      .to.include('two invoices')
      .and.include('120.00 EUR')
      .and.include('180.00 EUR');
    expect(
      await page
        .getByRole('table', { name: 'Bank transactions: left unlinked before and after' })
        .locator('tbody tr td')
        .allTextContents(),
    ).to.deep.equal([w.match.txn, '300.00 EUR', '300.00 EUR', '0.00 EUR']);
    expect(
      await page
        .getByRole('table', { name: 'Ledger entries: left open before and after' })
        .locator('tbody tr td')
        .allTextContents(),
    ).to.deep.equal([e1, '120.00 EUR', '120.00 EUR', '0.00 EUR', e2, '180.00 EUR', '180.00 EUR', '0.00 EUR']);
    await checkView('bank-match');
  });

  it("shows a staged journal entry: its lines with the accounts' names and debit and credit totals, the transaction it books and the receipt it attaches", async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    const fee = books.txn(account, -350, {
      booking_date: '2026-03-02',
      counterparty_id: books.cp('bank'),
      counterparty_name: 'The Bank',
      remittance_info: 'Account fee March',
    });
    const receipt = books.doc({
      file: { sha256: 'c'.repeat(64), name: 'fee-notice.pdf', size: 2048, mime: 'application/pdf' },
      extracted: { vendor_name: 'The Bank', invoice_number: 'FEE-2026-03', total_minor: 350, currency: 'EUR' },
    });
    books.file.accounts = [
      { code: '1200', name: 'Bank', type: 'asset', active: true },
      { code: '1400', name: 'Trade receivables', type: 'asset', active: true },
      { code: '1600', name: 'Trade payables', type: 'liability', active: true },
      { code: '6855', name: 'Bank fees', type: 'expense', active: true },
    ];
    await s.load(books.file);
    const stager = await s.token(books.orgId, ['ledger:stage'], 'erin');
    const reviewer = await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob');
    const staged = await call<{ staged_operation_id: string; plan: { ledger_entry_id: string } }>(
      'POST',
      '/api/v1/cli/ledger/entries/stage',
      {
        token: stager,
        body: bankFeeEntry(books.cp('bank'), { bank_transaction_id: fee, document_id: receipt }),
      },
    );
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const entryId = staged.body.data.plan.ledger_entry_id;

    await page.evaluate('sessionStorage.clear()');
    await signIn(reviewer);
    await page.goto(`${baseUrl}/review#/operation/${staged.body.data.staged_operation_id}`);
    const lines = page.getByRole('table', { name: `Lines of ${entryId}` });
    await lines.waitFor();
    expect(await lines.locator('tbody tr').allTextContents()).to.deep.equal([
      '6855Bank fees3.50 EUR',
      '1600Trade payables3.50 EUR',
      'Total3.50 EUR3.50 EUR',
    ]);
    const text = (await page.locator('main').textContent())!;
    expect(text)
      .to.include('Journal entry')
      .and.include(`Transaction${fee}`)
      .and.include('RemittanceAccount fee March')
      .and.include('Link apply creates3.50 EUR')
      .and.include(`Document${receipt}`)
      .and.include('fee-notice.pdf')
      .and.include('FEE-2026-03');
    await checkView('journal-entry');
    // Back to the main world's reviewer for the views after this one.
    await page.evaluate('sessionStorage.clear()');
    await signIn(w.bob);
  });

  it('is usable at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${baseUrl}/review#/operation/${w.repairId}`);
    await page.getByRole('table', { name: `Bank transaction ${w.txn}` }).waitFor();
    // Nothing wider than the screen (wide tables scroll inside their own region).
    const wider = await page.evaluate<
      string[]
    >(`[...document.querySelectorAll('body *')].filter((e) => !e.closest('.table-wrap') && e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .map((e) => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''))`);
    expect(wider).to.deep.equal([]);
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).to.equal(
      0,
    );
    await checkView('repair-phone');
  });

  it('requested nothing from any origin but its own, and broke no CSP rule', () => {
    expect(requested.length).to.be.greaterThan(10);
    const origin = new URL(baseUrl).origin;
    expect(requested.filter((u) => new URL(u).origin !== origin)).to.deep.equal([]);
    expect(cspReports).to.deep.equal([]);
  });

  it(`kept this run's screenshots, one per view, in a run folder of their own beside at most ${KEPT_RUNS - 1} earlier runs`, () => {
    const dir = screenshotRunDir();
    expect(dir).to.be.a('string');
    // The approval page's test (test/browser/approval-page.test.ts) keeps its views in the same run folder.
    expect(readdirSync(dir!).filter((file) => !file.startsWith('review-approval-'))).to.have.members(
      [
        'sign-in',
        'list',
        'repair',
        'repair-creator',
        'repair-applied',
        'revert',
        'reconcile',
        'reversal',
        'duplicates',
        'duplicates-resolve',
        'inbox-resolve',
        'statement-import',
        'period-close',
        'bank-match',
        'journal-entry',
        'repair-phone',
      ].map((view) => `review-${view}.png`),
    );
    const runs = readdirSync(SCREENSHOT_ROOT);
    expect(runs.length).to.be.at.most(KEPT_RUNS);
    expect(runs).to.include(dir!.slice(SCREENSHOT_ROOT.length + 1));
  });
});
