// docs/design/staged-lifecycle.md "Closed periods" on the real stack: closing a
// period is the staged kind `period_close` (refusals, the pending operations it
// names, dry run), its apply sets the lock date and stores the period with its
// hash, later stagings in the period are refused, an operation staged before
// the close goes stale at apply, and the period read tells an intact period
// from one changed behind the product's back.
import { expect } from 'chai';
import type { ReconcileData, ReversalData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { duplicatePair } from '../helpers/inbox.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, doc, docs, reject, show } from '../helpers/staged.js';
import { waitFor } from '../faults/fault-scenario.js';
import { utcDate } from '../../shared/domain/dates.js';
import { periodHash } from '../../shared/domain/period-hash.js';
import type { BankTransaction, LedgerEntry } from '../../shared/domain/books.js';

const CLOSE = '/api/v1/cli/periods/close/stage';
const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';
const reverse = (entryId: string): string => `/api/v1/cli/ledger/entries/${entryId}/reverse/stage`;
const CSV_QUERY = '?format=csv&date_column=date&amount_column=amount&counterparty_column=name&remittance_column=text';

interface CloseData {
  outcome: string;
  staged_operation_id: string;
  status: string;
  plan: {
    through: string;
    lock_date_before: string | null;
    note: string | null;
    entries: number;
    bank_transactions: number;
  };
  amount_minor: number;
  currency: string;
  dry_run?: boolean;
}

interface PeriodCheck {
  through: string;
  closed_at: string;
  approved_by: string;
  stored_hash: string;
  current_hash: string;
  intact: boolean;
}

/**
 * An EUR account opened at 1,000.00 with a January invoice paid in January and a February invoice paid in
 * February, each fully linked; alice stages books, carla stages closes, bob approves.
 */
async function periodBooks(lockDate: string | null = null) {
  const books = new Books({ lock_date: lockDate });
  const account = books.account({ opening_balance_minor: 100_000, iban: 'DE89370400440532013000' });
  const jan = books.invoice(5_000, { entry_date: '2026-01-15' });
  const feb = books.invoice(7_000, { entry_date: '2026-02-03' });
  const janTxn = books.txn(account, 5_000, { booking_date: '2026-01-20' });
  const febTxn = books.txn(account, 7_000, { booking_date: '2026-02-10' });
  books.link(janTxn, jan, 5_000);
  books.link(febTxn, feb, 7_000);
  const s = await stack();
  await s.load(books.file);
  const who = await actors(books.orgId);
  const carla = await s.token(books.orgId, ['policy:stage', 'staged:read'], 'carla');
  return { books, account, jan, feb, janTxn, febTxn, who, carla, s };
}

const close = (token: string, body: Record<string, unknown>, query = '') =>
  call<CloseData>('POST', `${CLOSE}${query}`, { token, body });

/** Stage a CSV statement of `lines` (`date,amount`) on the account. */
async function stageImport(token: string, account: string, lines: string[]) {
  const s = await stack();
  const res = await fetch(`${s.baseUrl}/api/v1/cli/bank-accounts/${account}/statements/import/stage${CSV_QUERY}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
    body: `date,amount,name,text\n${lines.map((l, i) => `${l},Payer ${i},line ${i}`).join('\n')}\n`,
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      data: {
        staged_operation_id: string;
        plan: { new_transactions: { booking_date: string }[]; skipped: { booking_date: string; reason: string }[] };
      };
      error: { code: string; details: Record<string, unknown> };
    },
  };
}

/** The period's hash computed here from the stored records, read with the driver. */
async function storedPeriodHash(orgId: string, through: string): Promise<string> {
  const entries = (await docs('ledger_entries', { org_id: orgId })).map(
    (d) => ({ ...d, id: d._id }) as unknown as LedgerEntry,
  );
  const transactions = (await docs('bank_transactions', { org_id: orgId })).map(
    (d) => ({ ...d, id: d._id }) as unknown as BankTransaction,
  );
  return periodHash(through, entries, transactions);
}

/** Stage, approve (bob) and apply (bob) a close through `through`. */
async function closeThrough(sc: Awaited<ReturnType<typeof periodBooks>>, through: string): Promise<string> {
  const staged = await close(sc.carla, { through });
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = staged.body.data.staged_operation_id;
  expect((await approve(sc.who.bob, id)).status).to.equal(200);
  const applied = await apply(sc.who.bob, id);
  expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  expect(applied.body.data.status).to.equal('applied');
  return id;
}

describe('POST /periods/close/stage', () => {
  it('stages a close: 201, the plan with the lock date it replaces and the records of the period, amount 0; a dry run stages nothing', async () => {
    const { books, carla } = await periodBooks('2025-12-31');
    const dry = await close(carla, { through: '2026-01-31', note: 'January' }, '?dry_run=true');
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    expect(dry.body.data).to.include({ dry_run: true, outcome: 'staged', amount_minor: 0, currency: 'EUR' });
    expect(await docs('staged_operations', { org_id: books.orgId })).to.have.length(0);

    const res = await close(carla, { through: '2026-01-31', note: 'January' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.operation).to.equal('period_close.stage');
    const plan = {
      through: '2026-01-31',
      lock_date_before: '2025-12-31',
      note: 'January',
      entries: 1,
      bank_transactions: 1,
    };
    expect(res.body.data).to.deep.include({
      outcome: 'staged',
      status: 'staged',
      amount_minor: 0,
      currency: 'EUR',
      plan,
    });
    expect(dry.body.data.plan).to.deep.equal(plan);
    const op = (await show(carla, res.body.data.staged_operation_id)).body.data;
    expect(op).to.include({ kind: 'period_close', status: 'staged' });
    expect(op.summary).to.deep.equal({
      through: '2026-01-31',
      lock_date_before: '2025-12-31',
      entries: 1,
      bank_transactions: 1,
    });

    // The very same close again: that operation, nothing new.
    const again = await close(carla, { through: '2026-01-31', note: 'January' });
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.data.staged_operation_id).to.equal(res.body.data.staged_operation_id);
    // Another close while one is pending: the pending gate names it.
    const other = await close(carla, { through: '2026-02-28' });
    expect(other.status, JSON.stringify(other.body)).to.equal(409);
    expect(other.body.error).to.deep.include({
      code: 'pending_operation',
      details: { staged_operation_ids: [res.body.data.staged_operation_id] },
    });
  });

  it('refuses a through on or before the lock date, or not before today (UTC): 422 invalid_period; a token without policy:stage: 403', async () => {
    const { books, carla, who } = await periodBooks('2026-01-31');
    for (const through of ['2026-01-31', '2026-01-15']) {
      const res = await close(carla, { through });
      expect(res.status, through).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'invalid_period',
        details: { reason: 'not_after_lock_date', through, lock_date: '2026-01-31' },
      });
    }
    const today = utcDate(new Date());
    const tomorrow = utcDate(new Date(Date.now() + 86_400_000));
    for (const through of [today, tomorrow]) {
      const res = await close(carla, { through });
      expect(res.status, through).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'invalid_period',
        details: { reason: 'not_before_today', through, today },
      });
    }
    const forbidden = await close(who.alice, { through: '2026-02-28' });
    expect(forbidden.status).to.equal(403);
    expect(forbidden.body.error).to.deep.include({ code: 'forbidden', details: { required_scope: 'policy:stage' } });
    expect(await docs('staged_operations', { org_id: books.orgId })).to.have.length(0);
  });

  it('refuses while a reversal, a reconciliation or an import would book in the period: 409 pending_operation naming them; one booking after it does not count', async () => {
    const { account, jan, feb, janTxn, who, carla } = await periodBooks();
    const inPeriod = await call<ReversalData>('POST', reverse(jan), {
      token: who.alice,
      body: { reversal_date: '2026-01-31' },
    });
    expect(inPeriod.status, JSON.stringify(inPeriod.body)).to.equal(201);
    const after = await call<ReversalData>('POST', reverse(feb), {
      token: who.alice,
      body: { reversal_date: '2026-03-01' },
    });
    expect(after.status, JSON.stringify(after.body)).to.equal(201);
    const imported = await stageImport(who.alice, account, ['2026-01-25,3.00', '2026-03-02,4.00']);
    expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
    const ids = [inPeriod.body.data.staged_operation_id, imported.body.data.staged_operation_id].sort();
    const res = await close(carla, { through: '2026-01-31' });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error).to.deep.include({
      code: 'pending_operation',
      details: { through: '2026-01-31', operation_ids: ids, staged_operation_ids: ids },
    });

    // Once those are rejected, a reconciliation through the period blocks it alone (it is approved, still pending).
    for (const id of ids) expect((await reject(who.bob, id, 'not now')).status).to.equal(200);
    const reconciled = await call<ReconcileData>('POST', RECONCILE, {
      token: who.alice,
      body: {
        bank_account_id: account,
        statement: { end_date: '2026-01-31', closing_balance_minor: 105_000, currency: 'EUR' },
        transaction_ids: [janTxn],
      },
    });
    expect(reconciled.status, JSON.stringify(reconciled.body)).to.equal(201);
    const rec = reconciled.body.data.staged_operation_id;
    expect((await approve(who.bob, rec)).status).to.equal(200);
    const blocked = await close(carla, { through: '2026-01-31' });
    expect(blocked.status).to.equal(409);
    expect(blocked.body.error.details).to.deep.include({ operation_ids: [rec] });

    // Through a day before the statement ends, nothing pending books in the period.
    const earlier = await close(carla, { through: '2026-01-30' });
    expect(earlier.status, JSON.stringify(earlier.body)).to.equal(201);
  });
});

describe('POST /periods/close/stage: which pending operations count', () => {
  it('a journal entry and a revert writing a record in the period count; a bank match, a link repair or a duplicate resolution does not', async () => {
    const books = new Books();
    const account = books.account({ opening_balance_minor: 100_000 });
    const invoice = books.invoice(4_000, { entry_date: '2026-01-10' });
    const txn = books.txn(account, 4_000, { booking_date: '2026-01-12' });
    books.invoice(2_500, { entry_date: '2026-01-08', counterparty_id: books.cp('r') });
    books.txn(account, 2_500, { booking_date: '2026-01-14', counterparty_id: books.cp('r') });
    const pair = duplicatePair(books);
    const s = await stack();
    await s.load(books.file);
    const who = await actors(books.orgId);
    const carla = await s.token(books.orgId, ['policy:stage', 'staged:read'], 'carla');
    const ivy = await s.token(books.orgId, ['inbox:stage', 'inbox:read', 'staged:read'], 'ivy');
    const entry = (entry_date: string, reference: string) => ({
      entry_date,
      description: 'Bank fee',
      reference,
      counterparty_id: books.cp('bank'),
      currency: 'EUR',
      lines: [
        { account: '6855', debit_minor: 350, credit_minor: 0 },
        { account: '1600', debit_minor: 0, credit_minor: 350 },
      ],
    });
    const ENTRIES = '/api/v1/cli/ledger/entries/stage';

    // An entry applied before the period ends, then its revert, reversed by an entry dated in the period.
    const booked = await call<{ staged_operation_id: string }>('POST', ENTRIES, {
      token: who.alice,
      body: entry('2026-01-05', 'FEE-1'),
    });
    expect(booked.status, JSON.stringify(booked.body)).to.equal(201);
    expect((await approve(who.bob, booked.body.data.staged_operation_id)).status).to.equal(200);
    expect((await apply(who.bob, booked.body.data.staged_operation_id)).status).to.equal(200);
    const revert = await call<{ staged_operation_id: string }>(
      'POST',
      `/api/v1/cli/staged-operations/${booked.body.data.staged_operation_id}/revert/stage`,
      { token: who.alice, body: { reversal_date: '2026-01-25' } },
    );
    expect(revert.status, JSON.stringify(revert.body)).to.equal(201);
    // A journal entry dated in the period, pending.
    const pendingEntry = await call<{ staged_operation_id: string }>('POST', ENTRIES, {
      token: who.alice,
      body: entry('2026-01-20', 'FEE-2'),
    });
    expect(pendingEntry.status, JSON.stringify(pendingEntry.body)).to.equal(201);
    // A bank match of a transaction and an invoice both dated in the period: links book nothing dated.
    const match = await call<{ staged_operation_id: string }>('POST', '/api/v1/cli/bank-matches/match/stage', {
      token: who.alice,
      body: {
        bank_account_id: account,
        matches: [{ bank_transaction_id: txn, ledger_entry_id: invoice, amount_minor: 4_000 }],
      },
    });
    expect(match.status, JSON.stringify(match.body)).to.equal(201);
    expect((await approve(who.bob, match.body.data.staged_operation_id)).status).to.equal(200);
    // A link repair of a counterparty whose records lie in the period, pending: links again.
    const repair = await call<{ staged_operation_id: string }>(
      'POST',
      '/api/v1/cli/bank-matches/ledger-link-repair/stage',
      {
        token: who.alice,
        body: { bank_account_id: account, counterparty_id: books.cp('r') },
      },
    );
    expect(repair.status, JSON.stringify(repair.body)).to.equal(201);
    // A duplicate resolution, pending: inbox documents are not dated records of the books.
    const resolution = await call<{ staged_operation_id: string }>(
      'POST',
      `/api/v1/cli/bookkeeping/inbox/duplicates/${pair.group}/resolve/stage`,
      { token: ivy, body: { resolution: 'archive_duplicates', keep_document_id: pair.a } },
    );
    expect(resolution.status, JSON.stringify(resolution.body)).to.equal(201);

    const ids = [revert.body.data.staged_operation_id, pendingEntry.body.data.staged_operation_id].sort();
    const res = await close(carla, { through: '2026-01-31' });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error).to.deep.include({
      code: 'pending_operation',
      details: { through: '2026-01-31', operation_ids: ids, staged_operation_ids: ids },
    });

    // Those rejected, the bank match, the link repair and the duplicate resolution do not hold the close back.
    for (const id of ids) expect((await reject(who.bob, id, 'after the close')).status).to.equal(200);
    const staged = await close(carla, { through: '2026-01-31' });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  });
});

describe('links in a closed period', () => {
  it('a bank match and a link repair of records dated in the closed period stage and apply: links change no balance', async () => {
    const books = new Books({ lock_date: '2026-01-31' });
    const account = books.account({ opening_balance_minor: 100_000 });
    const matched = books.invoice(4_000, { entry_date: '2026-01-10', counterparty_id: books.cp('m') });
    const matchTxn = books.txn(account, 4_000, { booking_date: '2026-01-12', counterparty_id: books.cp('m') });
    const repaired = books.invoice(2_500, { entry_date: '2026-01-08', counterparty_id: books.cp('r') });
    const repairTxn = books.txn(account, 2_500, { booking_date: '2026-01-14', counterparty_id: books.cp('r') });
    const s = await stack();
    await s.load(books.file);
    const who = await actors(books.orgId);

    const match = await call<{ staged_operation_id: string }>('POST', '/api/v1/cli/bank-matches/match/stage', {
      token: who.alice,
      body: {
        bank_account_id: account,
        matches: [{ bank_transaction_id: matchTxn, ledger_entry_id: matched, amount_minor: 4_000 }],
      },
    });
    const repair = await call<{ staged_operation_id: string; outcome: string }>(
      'POST',
      '/api/v1/cli/bank-matches/ledger-link-repair/stage',
      { token: who.alice, body: { bank_account_id: account, counterparty_id: books.cp('r') } },
    );
    for (const staged of [match, repair]) {
      expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
      const id = staged.body.data.staged_operation_id;
      expect((await approve(who.bob, id)).status).to.equal(200);
      const applied = await apply(who.bob, id);
      expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
      expect(applied.body.data.status).to.equal('applied');
    }
    const links = await docs('bank_links', { org_id: books.orgId });
    expect(links.map((l) => [l.bank_transaction_id, l.ledger_entry_id, l.amount_minor]).sort()).to.deep.equal(
      [
        [matchTxn, matched, 4_000],
        [repairTxn, repaired, 2_500],
      ].sort(),
    );
    expect(await doc('orgs', books.orgId)).to.include({ lock_date: '2026-01-31' });
  });
});

describe('applying a period close', () => {
  it('sets the lock date and stores the period with its hash; later stagings in the period are refused; the period reads intact until a record changes behind the product', async () => {
    const sc = await periodBooks();
    const { books, account, jan, janTxn, who, carla } = sc;
    const id = await closeThrough(sc, '2026-01-31');

    expect(await doc('orgs', books.orgId)).to.include({ lock_date: '2026-01-31', version: 2 });
    const hash = await storedPeriodHash(books.orgId, '2026-01-31');
    const stored = await docs('closed_periods', { org_id: books.orgId });
    expect(stored).to.have.length(1);
    expect(stored[0]).to.include({ through: '2026-01-31', approved_by: 'bob', hash, staged_operation_id: id });

    const reader = await sc.s.token(books.orgId, ['books:read'], 'rita');
    const list = await call<{ items: Record<string, unknown>[]; next_cursor: string | null }>(
      'GET',
      '/api/v1/cli/periods',
      { token: reader },
    );
    expect(list.status, JSON.stringify(list.body)).to.equal(200);
    expect(list.body.data.next_cursor).to.equal(null);
    expect(list.body.data.items).to.deep.equal([
      {
        through: '2026-01-31',
        closed_at: stored[0]!.closed_at,
        approved_by: 'bob',
        hash,
        staged_operation_id: id,
      },
    ]);
    const checked = await call<PeriodCheck>('GET', '/api/v1/cli/periods/2026-01-31', { token: reader });
    expect(checked.status, JSON.stringify(checked.body)).to.equal(200);
    expect(checked.body.data).to.deep.equal({
      through: '2026-01-31',
      closed_at: stored[0]!.closed_at,
      approved_by: 'bob',
      stored_hash: hash,
      current_hash: hash,
      intact: true,
    });
    expect((await call('GET', '/api/v1/cli/periods/2026-02-28', { token: reader })).status).to.equal(404);

    // The period is closed for every kind at staging.
    const reversal = await call<ReversalData>('POST', reverse(jan), {
      token: who.alice,
      body: { reversal_date: '2026-01-31' },
    });
    expect(reversal.status).to.equal(422);
    expect(reversal.body.error).to.deep.include({
      code: 'period_locked',
      details: { reversal_date: '2026-01-31', lock_date: '2026-01-31' },
    });
    const reconciliation = await call<ReconcileData>('POST', RECONCILE, {
      token: who.alice,
      body: {
        bank_account_id: account,
        statement: { end_date: '2026-01-31', closing_balance_minor: 105_000, currency: 'EUR' },
        transaction_ids: [janTxn],
      },
    });
    expect(reconciliation.status).to.equal(422);
    expect(reconciliation.body.error).to.deep.include({
      code: 'period_locked',
      details: { end_date: '2026-01-31', lock_date: '2026-01-31' },
    });
    const imported = await stageImport(who.alice, account, ['2026-01-25,3.00', '2026-03-02,4.00']);
    expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
    expect(imported.body.data.plan.new_transactions.map((t) => t.booking_date)).to.deep.equal(['2026-03-02']);
    expect(imported.body.data.plan.skipped).to.have.length(1);
    expect(imported.body.data.plan.skipped[0]).to.include({ booking_date: '2026-01-25', reason: 'period_locked' });
    // And closing it again is refused.
    const again = await close(carla, { through: '2026-01-31' });
    expect(again.status).to.equal(422);
    expect(again.body.error.code).to.equal('invalid_period');

    // A line of the January entry changed directly in the database: the period is no longer intact.
    await sc.s.db
      .collection('ledger_entries')
      .updateOne({ _id: jan } as never, { $set: { 'lines.0.debit_minor': 5_001, 'lines.1.credit_minor': 5_001 } });
    const changed = await call<PeriodCheck>('GET', '/api/v1/cli/periods/2026-01-31', { token: reader });
    expect(changed.status).to.equal(200);
    expect(changed.body.data).to.include({ stored_hash: hash, intact: false });
    expect(changed.body.data.current_hash).to.equal(await storedPeriodHash(books.orgId, '2026-01-31'));
    expect(changed.body.data.current_hash).to.not.equal(hash);
  });

  it('answers 409 pending_operation while an operation staged since the close would book in the period; the close stays approved and applies once it is rejected', async () => {
    const sc = await periodBooks();
    const { books, jan, who, carla } = sc;
    const staged = await close(carla, { through: '2026-01-31' });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(who.bob, id)).status).to.equal(200);
    const reversal = await call<ReversalData>('POST', reverse(jan), {
      token: who.alice,
      body: { reversal_date: '2026-01-31' },
    });
    expect(reversal.status, JSON.stringify(reversal.body)).to.equal(201);
    const rev = reversal.body.data.staged_operation_id;

    const refused = await apply(who.bob, id);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
    expect(refused.body.error).to.deep.include({
      code: 'pending_operation',
      details: { through: '2026-01-31', operation_ids: [rev], staged_operation_ids: [rev] },
    });
    expect((await show(who.bob, id)).body.data.status).to.equal('approved');
    expect(await doc('orgs', books.orgId)).to.include({ lock_date: null, version: 1 });
    expect(await docs('closed_periods', { org_id: books.orgId })).to.have.length(0);

    expect((await reject(who.bob, rev, 'after the close')).status).to.equal(200);
    const applied = await apply(who.bob, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(await doc('orgs', books.orgId)).to.include({ lock_date: '2026-01-31' });
  });

  it('an operation staged while the close was being applied: the close finishes after a crash, and that operation answers 409 stale_plan period_locked at apply', async function () {
    this.timeout(180_000);
    const sc = await periodBooks();
    const { books, jan, who, carla, s } = sc;
    const staged = await close(carla, { through: '2026-01-31' });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(who.bob, id)).status).to.equal(200);

    // The close's apply makes its first write (the period) and pauses before the lock date is set.
    await s.stopWorker();
    const logsBefore = s.workerLogs.length;
    let rev: string;
    try {
      await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'apply:after-first-write' });
      expect((await apply(who.bob, id, { prefer: 'wait=1' })).status).to.equal(202);
      await waitFor('the fault hook', () =>
        s.workerLogs.slice(logsBefore).some((l) => l.includes('test fault: apply paused')),
      );
      expect(await doc('orgs', books.orgId)).to.include({ lock_date: null });
      // Meanwhile a reversal into the period is staged and approved: the lock date does not cover it yet.
      const reversal = await call<ReversalData>('POST', reverse(jan), {
        token: who.alice,
        body: { reversal_date: '2026-01-31' },
      });
      expect(reversal.status, JSON.stringify(reversal.body)).to.equal(201);
      rev = reversal.body.data.staged_operation_id;
      expect((await approve(who.bob, rev)).status).to.equal(200);
    } finally {
      await s.killWorker();
      await s.startWorker();
    }

    const resumed = await apply(who.bob, id, { prefer: 'wait=45' });
    expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
    expect(resumed.body.data.status).to.equal('applied');
    expect(await doc('orgs', books.orgId)).to.include({ lock_date: '2026-01-31', version: 2 });
    expect(await docs('closed_periods', { org_id: books.orgId })).to.have.length(1);

    const applied = await apply(who.bob, rev);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(409);
    expect(applied.body.error.code).to.equal('stale_plan');
    expect(applied.body.error.details).to.deep.include({
      staged_operation_id: rev,
      reason: 'period_locked',
      lock_date: '2026-01-31',
      ledger_entry_id: jan,
      reversal_date: '2026-01-31',
    });
    expect((await show(who.bob, rev)).body.data.status).to.equal('stale');
    expect(await doc('ledger_entries', jan)).to.include({ status: 'posted' });
  });
});
