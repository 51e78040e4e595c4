// Staging a journal entry (docs/reference/http-api.md "Journal entry stage") on the real stack: every
// refusal with its code and in its order, the derived id, the locks, the duplicate warning, a dry run
// beside the real staging, and stage → approve → apply → the entry, its link and the document read back.
import { expect } from 'chai';
import type { StageData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, doc, docs, locksOf, reject, show } from '../helpers/staged.js';
import { waitFor } from '../faults/fault-scenario.js';
import { journalEntryId, type JournalEntryPlan } from '../../shared/kinds/journal-entry/plan.js';
import type { LedgerAccount } from '../../shared/domain/books.js';
import type { PlanContext } from '../../shared/domain/plan-context.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

const PATH = '/api/v1/cli/ledger/entries/stage';
type EntryData = StageData<JournalEntryPlan> & {
  context: PlanContext;
  amount_minor: number;
  currency: string;
  summary?: Record<string, unknown>;
  warnings?: unknown[];
};

const CHART: LedgerAccount[] = [
  { code: '1200', name: 'Bank', type: 'asset', active: true },
  { code: '1400', name: 'Trade receivables', type: 'asset', active: true },
  { code: '1600', name: 'Trade payables', type: 'liability', active: true },
  { code: '4000', name: 'Purchases', type: 'expense', active: true },
  { code: '4980', name: 'Office supplies (closed)', type: 'expense', active: false },
  { code: '6855', name: 'Bank fees', type: 'expense', active: true },
  { code: '8400', name: 'Revenue', type: 'income', active: true },
];

/** An org with a chart, a bank account on 1200, a bank fee of −3.50 unlinked and an open receipt of 3.50. */
async function setup(options: { lockDate?: string | null; chart?: boolean } = {}) {
  const books = new Books({ lock_date: options.lockDate ?? null });
  const account = books.account();
  const fee = books.txn(account, -350, {
    booking_date: '2026-03-02',
    counterparty_id: books.cp('bank'),
    counterparty_name: 'The Bank',
    remittance_info: 'Account fee March',
  });
  const receipt = books.doc({
    extracted: { vendor_name: 'The Bank', invoice_number: 'FEE-2026-03', total_minor: 350, currency: 'EUR' },
  });
  if (options.chart !== false) books.file.accounts = CHART;
  const s = await stack();
  await s.load(books.file);
  const who = await actors(books.orgId);
  return { books, account, fee, receipt, who, token: who.alice };
}
type Setup = Awaited<ReturnType<typeof setup>>;

const feeBody = (x: Setup, extra: Record<string, unknown> = {}) => bankFeeEntry(x.books.cp('bank'), extra);

const stage = (token: string, body: unknown, query = '') => call<EntryData>('POST', `${PATH}${query}`, { token, body });

async function refusal(token: string, body: unknown) {
  const res = await stage(token, body);
  return { status: res.status, error: res.body.error };
}

describe('POST /ledger/entries/stage (journal_entry)', function () {
  this.timeout(60_000);

  it('stages a bank fee booking its transaction and attaching its receipt: 201, the derived id, lines with names, context and amount', async () => {
    const x = await setup();
    const body = feeBody(x, { bank_transaction_id: x.fee, document_id: x.receipt, note: 'March fee' });
    const res = await stage(x.token, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.include({ ok: true, operation: 'journal_entry.stage' });
    const data = res.body.data;
    const id = journalEntryId(x.books.orgId, body);
    expect(id).to.match(/^le_[0-9a-f]{24}$/);
    expect(data.plan).to.deep.equal({
      ledger_entry_id: id,
      entry: {
        entry_date: '2026-03-02',
        description: 'Bank fee March',
        reference: 'FEE-2026-03',
        counterparty_id: x.books.cp('bank'),
        currency: 'EUR',
        lines: [
          { account: '6855', account_name: 'Bank fees', debit_minor: 350, credit_minor: 0 },
          { account: '1600', account_name: 'Trade payables', debit_minor: 0, credit_minor: 350 },
        ],
      },
      debit_total_minor: 350,
      credit_total_minor: 350,
      settlement_minor: -350,
      bank_link: {
        bank_transaction_id: x.fee,
        bank_account_id: x.account,
        transaction_amount_minor: -350,
        linked_before_minor: 0,
        amount_minor: 350,
      },
      document_id: x.receipt,
      note: 'March fee',
    });
    expect(data).to.include({ amount_minor: 350, currency: 'EUR', status: 'staged' });
    expect(data.context.bank_transactions?.map((t) => [t.id, t.amount_minor, t.remittance_info])).to.deep.equal([
      [x.fee, -350, 'Account fee March'],
    ]);
    expect(data.context.bank_account).to.deep.equal({ id: x.account, name: 'Main account', currency: 'EUR' });
    expect(data.context.inbox_documents?.map((d) => [d.id, d.extracted.invoice_number])).to.deep.equal([
      [x.receipt, 'FEE-2026-03'],
    ]);
    // Its scope, the entry id, the transaction and the document.
    expect(await locksOf(data.staged_operation_id)).to.equal(4);
    const shown = await show(x.who.bob, data.staged_operation_id);
    expect(shown.body.data.summary).to.deep.equal({
      ledger_entry_id: id,
      lines: 2,
      debit_total_minor: 350,
      bank_transaction_id: x.fee,
      linked_minor: 350,
      document_id: x.receipt,
    });
  });

  it('stage → approve → apply: the entry is posted under its id and settled (open: false), the transaction linked, the receipt booked', async () => {
    const x = await setup();
    const body = feeBody(x, { bank_transaction_id: x.fee, document_id: x.receipt });
    const staged = await stage(x.token, body);
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const opId = staged.body.data.staged_operation_id;
    const id = staged.body.data.plan.ledger_entry_id;
    expect((await approve(x.who.bob, opId)).status).to.equal(200);
    const applied = await apply(x.who.bob, opId);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.body.data.status).to.equal('applied');
    expect(await locksOf(opId)).to.equal(0);

    const read = await stack();
    const reader = await read.token(x.books.orgId, ['books:read']);
    const entry = await call<Record<string, unknown>>('GET', `/api/v1/cli/ledger/entries/${id}`, { token: reader });
    expect(entry.status, JSON.stringify(entry.body)).to.equal(200);
    const links = entry.body.data.links as Array<{
      link_id: string;
      bank_transaction_id: string;
      amount_minor: number;
    }>;
    expect(links.map((l) => [l.bank_transaction_id, l.amount_minor])).to.deep.equal([[x.fee, 350]]);
    expect(entry.body.data).to.deep.include({
      id,
      entry_date: '2026-03-02',
      reference: 'FEE-2026-03',
      counterparty_id: x.books.cp('bank'),
      status: 'posted',
      reversal_of: null,
      reversed_by: null,
      lines: [
        { account: '6855', debit_minor: 350, credit_minor: 0 },
        { account: '1600', debit_minor: 0, credit_minor: 350 },
      ],
      linked_minor: 350,
      open_amount_minor: -350,
      open: false,
    });
    const txn = await call<Record<string, unknown>>('GET', `/api/v1/cli/bank-transactions/${x.fee}`, {
      token: reader,
    });
    expect(txn.status, JSON.stringify(txn.body)).to.equal(200);
    expect((txn.body.data.links as Array<{ ledger_entry_id: string }>).map((l) => l.ledger_entry_id)).to.deep.equal([
      id,
    ]);
    const document = await call<Record<string, unknown>>(
      'GET',
      `/api/v1/cli/bookkeeping/inbox/documents/${x.receipt}`,
      { token: reader },
    );
    expect(document.status, JSON.stringify(document.body)).to.equal(200);
    expect(document.body.data).to.include({ status: 'booked', booked_entry_id: id });

    // The same booking again: its transaction is fully linked now (checked before the entry id).
    const again = await refusal(x.token, body);
    expect(again.status).to.equal(409);
    expect(again.error.code).to.equal('transaction_fully_linked');
  });

  it('an entry whose derived id is in the books: 409 entry_exists naming it', async () => {
    const x = await setup();
    const body = feeBody(x, { reference: 'PLAIN-1' });
    const staged = await stage(x.token, body);
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const opId = staged.body.data.staged_operation_id;
    expect((await approve(x.who.bob, opId)).status).to.equal(200);
    expect((await apply(x.who.bob, opId)).status).to.equal(200);
    const id = staged.body.data.plan.ledger_entry_id;
    expect(await doc('ledger_entries', id)).to.include({ status: 'posted', reference: 'PLAIN-1' });
    // Only the note differs: the same entry.
    const again = await refusal(x.token, { ...body, note: 'once more' });
    expect(again.status).to.equal(409);
    expect(again.error).to.deep.include({ code: 'entry_exists', details: { ledger_entry_id: id } });
  });

  it('books money in with a debit on a settlement account, for what the transaction has left unlinked', async () => {
    const books = new Books();
    books.file.accounts = CHART;
    const account = books.account();
    const paid = books.invoice(1_000);
    const txn = books.txn(account, 3_000);
    books.link(txn, paid, 1_000);
    const s = await stack();
    await s.load(books.file);
    const who = await actors(books.orgId);
    const body = {
      entry_date: '2026-02-10',
      description: 'Sale',
      reference: 'INV-9',
      counterparty_id: books.cp('a'),
      currency: 'EUR',
      lines: [
        { account: '1400', debit_minor: 2_000, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: 2_000 },
      ],
      bank_transaction_id: txn,
    };
    const res = await stage(who.alice, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.plan.bank_link).to.deep.equal({
      bank_transaction_id: txn,
      bank_account_id: account,
      transaction_amount_minor: 3_000,
      linked_before_minor: 1_000,
      amount_minor: 2_000,
    });
    const opId = res.body.data.staged_operation_id;
    expect((await approve(who.bob, opId)).status).to.equal(200);
    expect((await apply(who.bob, opId)).status).to.equal(200);
    const id = res.body.data.plan.ledger_entry_id;
    expect(await doc('ledger_entries', id)).to.include({ status: 'posted', counterparty_id: books.cp('a') });
    const links = await (await stack()).db.collection('bank_links').find({ ledger_entry_id: id }).toArray();
    expect(links.map((l): unknown[] => [l.bank_transaction_id, l.amount_minor])).to.deep.equal([[txn, 2_000]]);
  });

  describe('refusals, each with its code', () => {
    let x: Setup;
    before(async () => {
      x = await setup({ lockDate: '2026-02-28' });
    });

    it('fewer than 2 lines: 422 invalid_lines', async () => {
      const r = await refusal(x.token, feeBody(x, { lines: [{ account: '6855', debit_minor: 350, credit_minor: 0 }] }));
      expect(r.status).to.equal(422);
      expect(r.error).to.deep.include({
        code: 'invalid_lines',
        details: { line_count: 1, invalid_line_indexes: [] },
      });
    });

    it('a line with both or neither side above 0: 422 invalid_lines naming those lines', async () => {
      const r = await refusal(
        x.token,
        feeBody(x, {
          lines: [
            { account: '6855', debit_minor: 350, credit_minor: 0 },
            { account: '1600', debit_minor: 10, credit_minor: 360 },
            { account: '1400', debit_minor: 0, credit_minor: 0 },
          ],
        }),
      );
      expect(r.status).to.equal(422);
      expect(r.error).to.deep.include({
        code: 'invalid_lines',
        details: { line_count: 3, invalid_line_indexes: [1, 2] },
      });
    });

    it('Σ debits ≠ Σ credits: 422 unbalanced_entry with both sums (before an unknown account)', async () => {
      const r = await refusal(
        x.token,
        feeBody(x, {
          lines: [
            { account: '0000', debit_minor: 350, credit_minor: 0 },
            { account: '1600', debit_minor: 0, credit_minor: 300 },
          ],
        }),
      );
      expect(r.status).to.equal(422);
      expect(r.error).to.deep.include({
        code: 'unbalanced_entry',
        details: { debit_total_minor: 350, credit_total_minor: 300 },
      });
    });

    it('an unknown or inactive account: 422 unknown_account with the codes', async () => {
      const r = await refusal(
        x.token,
        feeBody(x, {
          lines: [
            { account: '4980', debit_minor: 100, credit_minor: 0 },
            { account: '0000', debit_minor: 250, credit_minor: 0 },
            { account: '1600', debit_minor: 0, credit_minor: 350 },
          ],
        }),
      );
      expect(r.status).to.equal(422);
      expect(r.error).to.deep.include({ code: 'unknown_account', details: { accounts: ['0000', '4980'] } });
    });

    it('a currency neither the base currency nor the transaction’s: 422 currency_mismatch', async () => {
      const r = await refusal(x.token, feeBody(x, { currency: 'USD', bank_transaction_id: x.fee }));
      expect(r.status).to.equal(422);
      expect(r.error).to.deep.include({
        code: 'currency_mismatch',
        details: { currency: 'USD', allowed_currencies: ['EUR'] },
      });
    });

    it('a date on or before the lock date: 422 period_locked', async () => {
      const r = await refusal(x.token, feeBody(x, { entry_date: '2026-02-28' }));
      expect(r.status).to.equal(422);
      expect(r.error).to.deep.include({
        code: 'period_locked',
        details: { entry_date: '2026-02-28', lock_date: '2026-02-28' },
      });
    });

    it("a line on a bank account's ledger_account: 422 posts_to_bank_account", async () => {
      const r = await refusal(
        x.token,
        feeBody(x, {
          lines: [
            { account: '6855', debit_minor: 350, credit_minor: 0 },
            { account: '1200', debit_minor: 0, credit_minor: 350 },
          ],
        }),
      );
      expect(r.status).to.equal(422);
      expect(r.error).to.deep.include({
        code: 'posts_to_bank_account',
        details: { accounts: ['1200'], bank_account_ids: [x.account] },
      });
    });

    it("another organisation's or an unknown bank transaction: 404 not_found", async () => {
      const other = await setup();
      for (const id of [other.fee, 'bt_unknown']) {
        const r = await refusal(x.token, feeBody(x, { bank_transaction_id: id }));
        expect(r.status).to.equal(404);
        expect(r.error).to.deep.include({ code: 'not_found', details: { resource: 'Bank transaction', id } });
      }
    });

    it('a transaction fully linked already: 409 transaction_fully_linked', async () => {
      const books = new Books();
      const account = books.account();
      const { txn } = books.linkedTxn(account, -500);
      const s = await stack();
      await s.load(books.file);
      const token = await s.token(books.orgId, ['ledger:stage']);
      const r = await refusal(token, {
        entry_date: '2026-03-02',
        description: 'Fee',
        reference: 'F-1',
        counterparty_id: books.cp('a'),
        currency: 'EUR',
        lines: [
          { account: '6855', debit_minor: 500, credit_minor: 0 },
          { account: '1600', debit_minor: 0, credit_minor: 500 },
        ],
        bank_transaction_id: txn,
      });
      expect(r.status).to.equal(409);
      expect(r.error).to.deep.include({
        code: 'transaction_fully_linked',
        details: { bank_transaction_id: txn, amount_minor: -500, linked_minor: 500 },
      });
    });

    it('money out without a settlement credit of the unlinked amount: 422 settlement_line_mismatch', async () => {
      const r = await refusal(
        x.token,
        feeBody(x, {
          bank_transaction_id: x.fee,
          lines: [
            { account: '6855', debit_minor: 350, credit_minor: 0 },
            { account: '8400', debit_minor: 0, credit_minor: 350 },
          ],
        }),
      );
      expect(r.status).to.equal(422);
      expect(r.error).to.deep.include({
        code: 'settlement_line_mismatch',
        details: {
          bank_transaction_id: x.fee,
          expected_settlement_minor: -350,
          settlement_minor: 0,
          settlement_accounts: ['1400', '1600'],
        },
      });
      // A debit (money in's side) on a settlement account does not book money out either.
      const wrongSide = await refusal(
        x.token,
        feeBody(x, {
          bank_transaction_id: x.fee,
          lines: [
            { account: '1400', debit_minor: 350, credit_minor: 0 },
            { account: '8400', debit_minor: 0, credit_minor: 350 },
          ],
        }),
      );
      expect(wrongSide.error).to.deep.include({
        code: 'settlement_line_mismatch',
        details: {
          bank_transaction_id: x.fee,
          expected_settlement_minor: -350,
          settlement_minor: 350,
          settlement_accounts: ['1400', '1600'],
        },
      });
    });

    it('an unknown document: 404; a document not open: 409 document_not_open', async () => {
      const missing = await refusal(x.token, feeBody(x, { document_id: 'doc_unknown' }));
      expect(missing.status).to.equal(404);
      expect(missing.error).to.deep.include({
        code: 'not_found',
        details: { resource: 'Inbox document', id: 'doc_unknown' },
      });
      const books = new Books();
      books.account();
      const archived = books.doc({ status: 'archived' });
      const s = await stack();
      await s.load(books.file);
      const token = await s.token(books.orgId, ['ledger:stage']);
      const r = await refusal(token, {
        entry_date: '2026-03-02',
        description: 'Fee',
        reference: 'F-1',
        counterparty_id: books.cp('a'),
        currency: 'EUR',
        lines: [
          { account: '6855', debit_minor: 500, credit_minor: 0 },
          { account: '1600', debit_minor: 0, credit_minor: 500 },
        ],
        document_id: archived,
      });
      expect(r.status).to.equal(409);
      expect(r.error).to.deep.include({
        code: 'document_not_open',
        details: { document_id: archived, status: 'archived' },
      });
    });

    it('without counterparty_id: 400 validation_failed', async () => {
      const { counterparty_id: _cp, ...body } = feeBody(x);
      const r = await refusal(x.token, body);
      expect(r.status).to.equal(400);
      expect(r.error.code).to.equal('validation_failed');
    });
  });

  it('an organisation without a chart accepts any code (names null)', async () => {
    const x = await setup({ chart: false });
    const res = await stage(
      x.token,
      feeBody(x, {
        lines: [
          { account: '0000', debit_minor: 350, credit_minor: 0 },
          { account: '1600', debit_minor: 0, credit_minor: 350 },
        ],
      }),
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.plan.entry.lines.map((l) => l.account_name)).to.deep.equal([null, null]);
  });

  it('an identical pending staging answers 409 pending_operation; so does another entry on the same transaction or document', async () => {
    const x = await setup();
    const body = feeBody(x, { bank_transaction_id: x.fee, document_id: x.receipt });
    const first = await stage(x.token, body);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const holder = first.body.data.staged_operation_id;
    const expectHeld = (r: { status: number; error: { code: string; details: unknown } }) => {
      expect(r.status).to.equal(409);
      expect(r.error).to.deep.include({ code: 'pending_operation', details: { staged_operation_ids: [holder] } });
    };
    expectHeld(await refusal(x.token, body));
    // Only the note differs: the same entry id.
    expectHeld(await refusal(x.token, { ...body, note: 'again' }));
    // Another entry on the same transaction.
    expectHeld(await refusal(x.token, feeBody(x, { bank_transaction_id: x.fee, reference: 'OTHER' })));
    // Another entry attaching the same document.
    expectHeld(await refusal(x.token, feeBody(x, { document_id: x.receipt, reference: 'OTHER' })));
    // Neither: stages.
    expect((await stage(x.token, feeBody(x, { reference: 'OTHER' }))).status).to.equal(201);
  });

  it('meets a pending link repair of the same transaction with 409, and a repair meets a pending booking the same way', async () => {
    const books = new Books();
    const account = books.account();
    books.invoice(4_000);
    const txn = books.txn(account, 4_000);
    const s = await stack();
    await s.load(books.file);
    const who = await actors(books.orgId);
    const repairBody = { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-03-31' };
    const booking = {
      entry_date: '2026-02-10',
      description: 'Sale',
      reference: 'INV-1',
      counterparty_id: books.cp('a'),
      currency: 'EUR',
      lines: [
        { account: '1400', debit_minor: 4_000, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: 4_000 },
      ],
      bank_transaction_id: txn,
    };
    const repair = await call<{ staged_operation_id: string }>(
      'POST',
      '/api/v1/cli/bank-matches/ledger-link-repair/stage',
      { token: who.alice, body: repairBody },
    );
    expect(repair.status, JSON.stringify(repair.body)).to.equal(201);
    const refused = await refusal(who.alice, booking);
    expect(refused.status).to.equal(409);
    expect(refused.error).to.deep.include({
      code: 'pending_operation',
      details: { staged_operation_ids: [repair.body.data.staged_operation_id] },
    });

    // The repair rejected, the booking stages; now the repair meets it.
    expect(
      (
        await call('POST', `/api/v1/cli/staged-operations/${repair.body.data.staged_operation_id}/reject`, {
          token: who.bob,
          body: { note: 'book it instead' },
        })
      ).status,
    ).to.equal(200);
    const staged = await stage(who.alice, booking);
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const again = await call('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage', {
      token: who.alice,
      body: repairBody,
    });
    expect(again.status, JSON.stringify(again.body)).to.equal(409);
    expect(again.body.error).to.deep.include({
      code: 'pending_operation',
      details: { staged_operation_ids: [staged.body.data.staged_operation_id] },
    });
  });

  it('meets a pending bank match of the same transaction with 409, and a match meets a pending booking the same way', async () => {
    const books = new Books();
    books.file.accounts = CHART;
    const account = books.account();
    const invoice = books.invoice(4_000);
    const txn = books.txn(account, 4_000);
    const s = await stack();
    await s.load(books.file);
    const who = await actors(books.orgId);
    const matchBody = {
      bank_account_id: account,
      matches: [{ bank_transaction_id: txn, ledger_entry_id: invoice, amount_minor: 4_000 }],
    };
    const booking = {
      entry_date: '2026-02-10',
      description: 'Sale',
      reference: 'INV-2',
      counterparty_id: books.cp('a'),
      currency: 'EUR',
      lines: [
        { account: '1400', debit_minor: 4_000, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: 4_000 },
      ],
      bank_transaction_id: txn,
    };
    const stageMatch = () =>
      call<{ staged_operation_id: string }>('POST', '/api/v1/cli/bank-matches/match/stage', {
        token: who.alice,
        body: matchBody,
      });
    const match = await stageMatch();
    expect(match.status, JSON.stringify(match.body)).to.equal(201);
    const refused = await refusal(who.alice, booking);
    expect(refused.status).to.equal(409);
    expect(refused.error).to.deep.include({
      code: 'pending_operation',
      details: { staged_operation_ids: [match.body.data.staged_operation_id] },
    });

    // The match rejected, the booking stages; now the match meets it.
    expect((await reject(who.bob, match.body.data.staged_operation_id, 'book it instead')).status).to.equal(200);
    const staged = await stage(who.alice, booking);
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const again = await stageMatch();
    expect(again.status, JSON.stringify(again.body)).to.equal(409);
    expect(again.body.error).to.deep.include({
      code: 'pending_operation',
      details: { staged_operation_ids: [staged.body.data.staged_operation_id] },
    });
  });

  it('a dry run and the real staging show the same id and plan_hash', async () => {
    const x = await setup();
    const body = feeBody(x, { bank_transaction_id: x.fee, document_id: x.receipt });
    const dry = await stage(x.token, body, '?dry_run=true');
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    const real = await stage(x.token, body);
    expect(real.status, JSON.stringify(real.body)).to.equal(201);
    expect(dry.body.data.plan.ledger_entry_id).to.equal(real.body.data.plan.ledger_entry_id);
    expect(dry.body.data.plan_hash).to.equal(real.body.data.plan_hash);
    expect(dry.body.data.plan).to.deep.equal(real.body.data.plan);
    // A dry run now meets the pending staging: the same plan, with the warning.
    const later = await stage(x.token, body, '?dry_run=true');
    expect(later.status).to.equal(200);
    expect(later.body.data.plan_hash).to.equal(real.body.data.plan_hash);
    expect(later.body.warnings?.map((w) => (w as { code: string }).code)).to.deep.equal(['pending_operation']);
  });

  it('warns possible_duplicate_entry for a posted entry of the same counterparty, settlement amount and reference', async () => {
    const books = new Books();
    books.file.accounts = CHART;
    books.account();
    const same = books.invoice(-350, { reference: 'FEE-2026-03', counterparty_id: books.cp('bank') });
    books.invoice(-351, { reference: 'FEE-2026-03', counterparty_id: books.cp('bank') });
    books.invoice(-350, { reference: 'FEE-2026-04', counterparty_id: books.cp('bank') });
    books.invoice(-350, { reference: 'FEE-2026-03', counterparty_id: books.cp('other') });
    const s = await stack();
    await s.load(books.file);
    const token = await s.token(books.orgId, ['ledger:stage']);
    const res = await stage(token, bankFeeEntry(books.cp('bank')));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.warnings).to.deep.equal([
      {
        code: 'possible_duplicate_entry',
        message: `Posted entries with the same counterparty, reference and settlement amount: ${same}.`,
        details: {
          ledger_entry_ids: [same],
          counterparty_id: books.cp('bank'),
          reference: 'FEE-2026-03',
          settlement_minor: -350,
        },
      },
    ]);
  });

  it('a lock date that reaches the entry after staging: apply answers 409 stale_plan period_locked and writes nothing', async () => {
    const x = await setup();
    const staged = await stage(x.token, feeBody(x, { bank_transaction_id: x.fee, document_id: x.receipt }));
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const opId = staged.body.data.staged_operation_id;
    const id = staged.body.data.plan.ledger_entry_id;
    expect((await approve(x.who.bob, opId)).status).to.equal(200);
    const s = await stack();
    await s.db.collection('orgs').updateOne({ _id: x.books.orgId } as never, { $set: { lock_date: '2026-03-31' } });
    const applied = await apply(x.who.bob, opId);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(409);
    expect(applied.body.error.code).to.equal('stale_plan');
    expect(applied.body.error.details).to.deep.equal({
      staged_operation_id: opId,
      changed: [],
      reason: 'period_locked',
      lock_date: '2026-03-31',
      ledger_entry_id: id,
      entry_date: '2026-03-02',
    });
    expect(applied.body.error.message).to.include(`the entry ${id} dated 2026-03-02`);
    expect((await show(x.who.bob, opId)).body.data.status).to.equal('stale');
    expect(await doc('ledger_entries', id)).to.equal(null);
    expect(await doc('inbox_documents', x.receipt)).to.include({ status: 'open' });
  });

  it('an account made inactive after staging: apply answers 409 stale_plan naming it and writes nothing', async () => {
    const x = await setup();
    const staged = await stage(x.token, feeBody(x, { bank_transaction_id: x.fee, document_id: x.receipt }));
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const opId = staged.body.data.staged_operation_id;
    const id = staged.body.data.plan.ledger_entry_id;
    expect((await approve(x.who.bob, opId)).status).to.equal(200);
    // The books imported again with 6855 closed: new entries may no longer post to it.
    x.books.file.accounts = CHART.map((a) => (a.code === '6855' ? { ...a, active: false } : a));
    await (await stack()).load(x.books.file);
    const applied = await apply(x.who.bob, opId);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(409);
    expect(applied.body.error.code).to.equal('stale_plan');
    expect(applied.body.error.details).to.deep.equal({
      staged_operation_id: opId,
      changed: [
        {
          collection: 'ledger_accounts',
          id: `${x.books.orgId}:6855`,
          expected_version: 1,
          actual_version: 2,
        },
      ],
    });
    expect(await doc('ledger_entries', id)).to.equal(null);
    expect(await docs('bank_links', { bank_transaction_id: x.fee })).to.deep.equal([]);
    expect(await doc('inbox_documents', x.receipt)).to.include({ status: 'open' });
    // Staged again, the entry is refused with the code that names the account.
    const again = await refusal(x.token, feeBody(x, { bank_transaction_id: x.fee, document_id: x.receipt }));
    expect(again.status).to.equal(422);
    expect(again.error).to.deep.include({ code: 'unknown_account', details: { accounts: ['6855'] } });
  });

  it("staged without a chart, applied after a chart that lacks a line's code: 409 stale_plan naming it, nothing written", async () => {
    const x = await setup({ chart: false });
    const staged = await stage(x.token, feeBody(x, { bank_transaction_id: x.fee }));
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const opId = staged.body.data.staged_operation_id;
    const id = staged.body.data.plan.ledger_entry_id;
    expect((await approve(x.who.bob, opId)).status).to.equal(200);
    // The organisation gets a chart without 6855: new entries may post only to its active codes.
    x.books.file.accounts = CHART.filter((a) => a.code !== '6855');
    await (await stack()).load(x.books.file);
    const applied = await apply(x.who.bob, opId);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(409);
    expect(applied.body.error.code).to.equal('stale_plan');
    expect(applied.body.error.details).to.deep.equal({
      staged_operation_id: opId,
      changed: [
        { collection: 'ledger_accounts', id: `${x.books.orgId}:6855`, expected_version: 0, actual_version: null },
      ],
    });
    expect(await doc('ledger_entries', id)).to.equal(null);
    expect(await docs('bank_links', { bank_transaction_id: x.fee })).to.deep.equal([]);
  });

  it('a worker killed after the first journal write: a new worker finishes the apply exactly once', async () => {
    const s = await stack();
    const x = await setup();
    const staged = await stage(x.token, feeBody(x, { bank_transaction_id: x.fee, document_id: x.receipt }));
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const opId = staged.body.data.staged_operation_id;
    const id = staged.body.data.plan.ledger_entry_id;
    expect((await approve(x.who.bob, opId)).status).to.equal(200);

    await s.stopWorker();
    const logsBefore = s.workerLogs.length;
    try {
      await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'apply:after-first-write' });
      const first = await apply(x.who.bob, opId, { prefer: 'wait=1' });
      expect(first.status).to.equal(202);
      await waitFor('the fault hook', () =>
        s.workerLogs.slice(logsBefore).some((l) => l.includes('test fault: apply paused')),
      );
      // Half-way: the entry is written, its link and the document not yet.
      expect(await doc('ledger_entries', id)).to.include({ status: 'posted' });
      expect(await docs('bank_links', { ledger_entry_id: id })).to.deep.equal([]);
      expect(await doc('inbox_documents', x.receipt)).to.include({ status: 'open' });
      await s.killWorker();
    } finally {
      await s.killWorker();
      await s.startWorker();
    }

    const resumed = await apply(x.who.bob, opId, { prefer: 'wait=45' });
    expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
    expect(resumed.body.data.status).to.equal('applied');
    expect((await docs('bank_links', { ledger_entry_id: id })).map((l) => l.amount_minor)).to.deep.equal([350]);
    expect(await doc('inbox_documents', x.receipt)).to.include({ status: 'booked', booked_entry_id: id });
    expect(await docs('ledger_entries', { _id: id })).to.have.length(1);
    expect(await locksOf(opId)).to.equal(0);
  });
});
