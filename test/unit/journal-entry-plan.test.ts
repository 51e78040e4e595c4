// The journal entry kind's pure rules (shared/kinds/journal-entry/): the derived id, the lines' rules, the
// checks in their order, the plan, claim and preconditions, the duplicate warning, the lock date at apply,
// the apply journal, and the summary and amount. Exact values.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { BankLink, BankTransaction, LedgerEntry, Org } from '../../shared/domain/books.js';
import type { VersionedInboxDocument } from '../../shared/domain/books.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import {
  checkLines,
  decideJournalEntry,
  journalEntryId,
  lockedJournalEntry,
  type JournalEntryBooks,
  type JournalEntryPlan,
} from '../../shared/kinds/journal-entry/plan.js';
import { journalEntryJournal, journalEntryLinkId } from '../../shared/kinds/journal-entry/journal.js';
import { chartClashes, unheldCodes } from '../../shared/kinds/journal-entry/apply-check.js';
import type { JournalEntryStageInput } from '../../shared/kinds/journal-entry/schema.js';
import { journalEntry } from '../../shared/kinds/journal-entry/wire.js';

const org: Org = {
  id: 'org_1',
  name: 'Org',
  base_currency: 'EUR',
  lock_date: '2026-02-28',
  settlement_accounts: ['1400', '1600'],
  require_distinct_approver: true,
  version: 3,
};

const fee: BankTransaction = {
  id: 'bt_fee',
  bank_account_id: 'ba_main',
  booking_date: '2026-03-02',
  amount_minor: -500,
  currency: 'EUR',
  counterparty_id: 'cp_bank',
  counterparty_name: 'The Bank',
  remittance_info: 'Fee',
  status: 'unreconciled',
  reconciliation_id: null,
  version: 2,
};

const partLink: BankLink = {
  id: 'lnk_1',
  bank_transaction_id: 'bt_fee',
  ledger_entry_id: 'le_old',
  amount_minor: 150,
  created_at: '2026-03-02T00:00:00.000Z',
  created_by: 'alice',
  version: 1,
};

const receipt: VersionedInboxDocument = {
  id: 'doc_1',
  received_at: '2026-03-02T09:00:00.000Z',
  source: 'email',
  status: 'open',
  file: { sha256: 'ab', name: 'fee.pdf', size: 10, mime: 'application/pdf' },
  extracted: {},
  version: 4,
};

const books = (over: Partial<JournalEntryBooks> = {}): JournalEntryBooks => ({
  org,
  chart: [
    { id: 'org_1:1200', code: '1200', name: 'Bank', type: 'asset', active: true, version: 1 },
    { id: 'org_1:1600', code: '1600', name: 'Trade payables', type: 'liability', active: true, version: 2 },
    { id: 'org_1:4980', code: '4980', name: 'Closed', type: 'expense', active: false, version: 3 },
    { id: 'org_1:6855', code: '6855', name: 'Bank fees', type: 'expense', active: true, version: 5 },
  ],
  bank_accounts: [
    {
      id: 'ba_main',
      name: 'Main',
      currency: 'EUR',
      ledger_account: '1200',
      reconciled_through: null,
      opening_balance_minor: 0,
      version: 1,
    },
  ],
  transaction: fee,
  transaction_links: [partLink],
  document: receipt,
  entry_exists: false,
  same_reference: [],
  pending: [],
  ...over,
});

const request = (over: Partial<JournalEntryStageInput> = {}): JournalEntryStageInput => ({
  entry_date: '2026-03-02',
  description: 'Bank fee',
  reference: 'FEE-1',
  counterparty_id: 'cp_bank',
  currency: 'EUR',
  lines: [
    { account: '6855', debit_minor: 350, credit_minor: 0 },
    { account: '1600', debit_minor: 0, credit_minor: 350 },
  ],
  bank_transaction_id: 'bt_fee',
  document_id: 'doc_1',
  ...over,
});

const codeOf = (d: ReturnType<typeof decideJournalEntry>) => (d.outcome === 'refused' ? d.code : d.outcome);

describe('journal entry: the derived id', () => {
  it('is le_ + the first 24 hex of SHA-256 over "ORG:" and the canonical JSON of the body without note', () => {
    const body = { reference: 'R', lines: [{ credit_minor: 0, account: '1', debit_minor: 5 }], note: 'not hashed' };
    // RFC 8785 by hand: keys in code-unit order at every depth, no spaces.
    const canonical = '{"lines":[{"account":"1","credit_minor":0,"debit_minor":5}],"reference":"R"}';
    const expected = `le_${createHash('sha256').update(`org_1:${canonical}`).digest('hex').slice(0, 24)}`;
    expect(journalEntryId('org_1', body as never)).to.equal(expected);
    const { note: _n, ...noNote } = body;
    expect(journalEntryId('org_1', noNote as never)).to.equal(expected);
  });

  it('differs by organisation and by any field but note', () => {
    const a = journalEntryId('org_1', request());
    expect(journalEntryId('org_2', request())).to.not.equal(a);
    expect(journalEntryId('org_1', request({ reference: 'FEE-2' }))).to.not.equal(a);
    expect(journalEntryId('org_1', request({ note: 'x' }))).to.equal(a);
  });
});

describe('journal entry: the lines', () => {
  it('needs two lines, each with exactly one side above 0', () => {
    expect(checkLines([{ debit_minor: 1, credit_minor: 0 }])).to.deep.equal({
      outcome: 'refused',
      code: 'invalid_lines',
      details: { line_count: 1, invalid_line_indexes: [] },
    });
    expect(
      checkLines([
        { debit_minor: 0, credit_minor: 0 },
        { debit_minor: 1, credit_minor: 0 },
        { debit_minor: 1, credit_minor: 1 },
      ]),
    ).to.deep.equal({
      outcome: 'refused',
      code: 'invalid_lines',
      details: { line_count: 3, invalid_line_indexes: [0, 2] },
    });
  });

  it('balances exactly: both sums in the refusal, the totals when equal', () => {
    expect(
      checkLines([
        { debit_minor: 100, credit_minor: 0 },
        { debit_minor: 0, credit_minor: 99 },
      ]),
    ).to.deep.equal({
      outcome: 'refused',
      code: 'unbalanced_entry',
      details: { debit_total_minor: 100, credit_total_minor: 99 },
    });
    expect(
      checkLines([
        { debit_minor: 100, credit_minor: 0 },
        { debit_minor: 50, credit_minor: 0 },
        { debit_minor: 0, credit_minor: 150 },
      ]),
    ).to.deep.equal({ debit_total_minor: 150, credit_total_minor: 150 });
  });

  it('sums past 2^53 − 1 exactly, and refuses them as amount_out_of_range', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(
      checkLines([
        { debit_minor: max, credit_minor: 0 },
        { debit_minor: 1, credit_minor: 0 },
        { debit_minor: 0, credit_minor: max },
      ]),
    ).to.deep.equal({
      outcome: 'refused',
      code: 'amount_out_of_range',
      details: { field: 'Σ debit_minor', max_minor: max },
    });
  });
});

describe('journal entry: the checks in their order', () => {
  const id = 'le_x';
  it('answers the first failing rule of a request that fails several', () => {
    const all = request({
      currency: 'USD',
      entry_date: '2026-01-01',
      lines: [
        { account: '1200', debit_minor: 350, credit_minor: 0 },
        { account: 'nope', debit_minor: 0, credit_minor: 300 },
      ],
    });
    expect(codeOf(decideJournalEntry(books(), all, id))).to.equal('unbalanced_entry');
    const balanced = { ...all, lines: [all.lines[0]!, { ...all.lines[1]!, credit_minor: 350 }] };
    expect(codeOf(decideJournalEntry(books(), balanced, id))).to.equal('unknown_account');
    const known = { ...balanced, lines: [balanced.lines[0]!, { ...balanced.lines[1]!, account: '1600' }] };
    expect(codeOf(decideJournalEntry(books(), known, id))).to.equal('currency_mismatch');
    expect(codeOf(decideJournalEntry(books(), { ...known, currency: 'EUR' }, id))).to.equal('period_locked');
    const open = { ...known, currency: 'EUR', entry_date: '2026-03-01' };
    expect(decideJournalEntry(books(), open, id)).to.deep.equal({
      outcome: 'refused',
      code: 'posts_to_bank_account',
      details: { accounts: ['1200'], bank_account_ids: ['ba_main'] },
    });
    const next = { ...open, lines: request().lines };
    expect(decideJournalEntry(books({ transaction: null }), next, id)).to.deep.equal({
      outcome: 'refused',
      code: 'not_found',
      details: { resource: 'Bank transaction', id: 'bt_fee' },
    });
    const full = { ...partLink, amount_minor: 500 };
    expect(decideJournalEntry(books({ transaction_links: [full] }), next, id)).to.deep.equal({
      outcome: 'refused',
      code: 'transaction_fully_linked',
      details: { bank_transaction_id: 'bt_fee', amount_minor: -500, linked_minor: 500 },
    });
    // 500 − 150 = 350 left unlinked: the lines settle 350 exactly; 349 does not.
    const short = {
      ...next,
      lines: [
        { account: '6855', debit_minor: 349, credit_minor: 0 },
        { account: '1600', debit_minor: 0, credit_minor: 349 },
      ],
    };
    expect(decideJournalEntry(books(), short, id)).to.deep.equal({
      outcome: 'refused',
      code: 'settlement_line_mismatch',
      details: {
        bank_transaction_id: 'bt_fee',
        expected_settlement_minor: -350,
        settlement_minor: -349,
        settlement_accounts: ['1400', '1600'],
      },
    });
    expect(decideJournalEntry(books({ document: null }), next, id)).to.deep.equal({
      outcome: 'refused',
      code: 'not_found',
      details: { resource: 'Inbox document', id: 'doc_1' },
    });
    expect(decideJournalEntry(books({ document: { ...receipt, status: 'booked' } }), next, id)).to.deep.equal({
      outcome: 'refused',
      code: 'document_not_open',
      details: { document_id: 'doc_1', status: 'booked' },
    });
    expect(decideJournalEntry(books({ entry_exists: true }), next, id)).to.deep.equal({
      outcome: 'refused',
      code: 'entry_exists',
      details: { ledger_entry_id: id },
    });
    const holder = { staged_operation_id: 'stg_1', subject_key: `journal_entry:${id}`, plan_hash: 'h' };
    expect(decideJournalEntry(books({ pending: [holder] }), next, id)).to.deep.equal({
      outcome: 'refused',
      code: 'pending_operation',
      details: { staged_operation_ids: ['stg_1'] },
    });
    expect(codeOf(decideJournalEntry(books(), next, id))).to.equal('staged');
  });

  it("accepts the transaction's currency beside the base currency", () => {
    const usd = books({ transaction: { ...fee, currency: 'USD' } });
    expect(codeOf(decideJournalEntry(usd, request({ currency: 'USD' }), 'le_x'))).to.equal('staged');
    expect(decideJournalEntry(usd, request({ currency: 'GBP' }), 'le_x')).to.deep.equal({
      outcome: 'refused',
      code: 'currency_mismatch',
      details: { currency: 'GBP', allowed_currencies: ['EUR', 'USD'] },
    });
  });

  it('money in settles with a debit on a settlement account', () => {
    const income = books({ transaction: { ...fee, amount_minor: 350 }, transaction_links: [], document: null });
    const lines = [
      { account: '1600', debit_minor: 350, credit_minor: 0 },
      { account: '6855', debit_minor: 0, credit_minor: 350 },
    ];
    const staged = decideJournalEntry(income, request({ lines, document_id: undefined }), 'le_x');
    expect(staged.outcome === 'staged' && staged.plan.bank_link).to.deep.equal({
      bank_transaction_id: 'bt_fee',
      bank_account_id: 'ba_main',
      transaction_amount_minor: 350,
      linked_before_minor: 0,
      amount_minor: 350,
    });
    const wrong = decideJournalEntry(income, request({ document_id: undefined }), 'le_x');
    expect(codeOf(wrong)).to.equal('settlement_line_mismatch');
  });

  it('without a chart any code is accepted, and lines carry no names', () => {
    const d = decideJournalEntry(
      books({ chart: [] }),
      request({
        lines: [
          { account: '9999', debit_minor: 350, credit_minor: 0 },
          { account: '1600', debit_minor: 0, credit_minor: 350 },
        ],
      }),
      'le_x',
    );
    expect(d.outcome === 'staged' && d.plan.entry.lines.map((l) => l.account_name)).to.deep.equal([null, null]);
  });
});

describe('journal entry: the staged decision', () => {
  it('plans the entry with account names, the link for the unlinked amount, the document; claims and preconditions', () => {
    const d = decideJournalEntry(books(), request({ note: 'why' }), 'le_x');
    const plan: JournalEntryPlan = {
      ledger_entry_id: 'le_x',
      entry: {
        entry_date: '2026-03-02',
        description: 'Bank fee',
        reference: 'FEE-1',
        counterparty_id: 'cp_bank',
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
        bank_transaction_id: 'bt_fee',
        bank_account_id: 'ba_main',
        transaction_amount_minor: -500,
        linked_before_minor: 150,
        amount_minor: 350,
      },
      document_id: 'doc_1',
      note: 'why',
    };
    expect(d).to.deep.equal({
      outcome: 'staged',
      plan,
      plan_hash: planHash(plan),
      locks: {
        subject_key: 'journal_entry:le_x',
        entry_ids: ['le_x'],
        transaction_ids: ['bt_fee'],
        document_ids: ['doc_1'],
        same_plan_conflicts: true,
      },
      preconditions: [
        { collection: 'orgs', id: 'org_1', version: 3 },
        // Each line's account, by code: one closed since makes apply stale.
        { collection: 'ledger_accounts', id: 'org_1:1600', version: 2 },
        { collection: 'ledger_accounts', id: 'org_1:6855', version: 5 },
        { collection: 'bank_transactions', id: 'bt_fee', version: 2 },
        { collection: 'bank_links', id: 'lnk_1', version: 1 },
        { collection: 'inbox_documents', id: 'doc_1', version: 4 },
      ],
      warnings: [],
    });
  });

  it('warns possible_duplicate_entry for posted entries of the same counterparty, reference and settlement amount', () => {
    const entry = (id: string, over: Partial<LedgerEntry> = {}): LedgerEntry => ({
      id,
      entry_date: '2026-01-01',
      description: 'd',
      reference: 'FEE-1',
      counterparty_id: 'cp_bank',
      currency: 'EUR',
      lines: [
        { account: '6855', debit_minor: 350, credit_minor: 0 },
        { account: '1600', debit_minor: 0, credit_minor: 350 },
      ],
      status: 'posted',
      reversal_of: null,
      reversed_by: null,
      version: 1,
      ...over,
    });
    const same = [
      entry('le_b'),
      entry('le_a'),
      entry('le_reversed', { status: 'reversed' }),
      entry('le_other_amount', {
        lines: [
          { account: '6855', debit_minor: 351, credit_minor: 0 },
          { account: '1600', debit_minor: 0, credit_minor: 351 },
        ],
      }),
    ];
    const d = decideJournalEntry(books({ same_reference: same }), request(), 'le_x');
    expect(d.outcome === 'staged' && d.warnings).to.deep.equal([
      {
        code: 'possible_duplicate_entry',
        message: 'Posted entries with the same counterparty, reference and settlement amount: le_a, le_b.',
        details: {
          ledger_entry_ids: ['le_a', 'le_b'],
          counterparty_id: 'cp_bank',
          reference: 'FEE-1',
          settlement_minor: -350,
        },
      },
    ]);
  });
});

describe('journal entry: apply', () => {
  const staged = decideJournalEntry(books(), request(), 'le_x');
  const plan = (staged as { plan: JournalEntryPlan }).plan;
  const ctx = { staged_operation_id: 'stg_1', org_id: 'org_1', actor: 'bob', now: '2026-03-03T10:00:00.000Z' };

  it('inserts the entry, the link for the unlinked amount, and marks the document booked', () => {
    const journal = journalEntryJournal(plan, { transactions: [fee], links: [partLink], documents: [receipt] }, ctx);
    expect(journal).to.deep.equal({
      ok: true,
      value: [
        {
          action: 'insert',
          collection: 'ledger_entries',
          id: 'le_x',
          doc: {
            entry_date: '2026-03-02',
            description: 'Bank fee',
            reference: 'FEE-1',
            counterparty_id: 'cp_bank',
            currency: 'EUR',
            lines: [
              { account: '6855', debit_minor: 350, credit_minor: 0 },
              { account: '1600', debit_minor: 0, credit_minor: 350 },
            ],
            status: 'posted',
            reversal_of: null,
            reversed_by: null,
            version: 1,
          },
        },
        {
          action: 'insert',
          collection: 'bank_links',
          id: journalEntryLinkId(ctx, 'bt_fee', 'le_x'),
          doc: {
            bank_transaction_id: 'bt_fee',
            ledger_entry_id: 'le_x',
            amount_minor: 350,
            created_at: '2026-03-03T10:00:00.000Z',
            created_by: 'bob',
            version: 1,
          },
        },
        {
          action: 'update',
          collection: 'inbox_documents',
          id: 'doc_1',
          version: 4,
          set: { status: 'booked', booked_entry_id: 'le_x' },
          before: { status: 'open', booked_entry_id: null },
        },
      ],
    });
    expect(journalEntryLinkId(ctx, 'bt_fee', 'le_x')).to.equal(
      `lnk_${createHash('sha256').update('org_1:stg_1:bt_fee:le_x').digest('hex').slice(0, 24)}`,
    );
  });

  it('fails when the document is no longer open or the transaction was linked since', () => {
    const booked = journalEntryJournal(
      plan,
      { transactions: [fee], links: [partLink], documents: [{ ...receipt, status: 'archived' }] },
      ctx,
    );
    expect(!booked.ok && booked.error.details).to.deep.equal({
      reason: 'inbox_document_not_open',
      id: 'doc_1',
      status: 'archived',
    });
    const linked = journalEntryJournal(
      plan,
      { transactions: [fee], links: [partLink, { ...partLink, id: 'lnk_2', amount_minor: 1 }], documents: [receipt] },
      ctx,
    );
    expect(!linked.ok && linked.error.details).to.deep.equal({ reason: 'bank_transaction_linked_since', id: 'bt_fee' });
  });

  it('the lock date at apply: stale when it now covers the entry date', () => {
    expect(lockedJournalEntry(plan, null)).to.equal(null);
    expect(lockedJournalEntry(plan, '2026-03-01')).to.equal(null);
    expect(lockedJournalEntry(plan, '2026-03-02')).to.deep.equal({
      reason: 'period_locked',
      lock_date: '2026-03-02',
      ledger_entry_id: 'le_x',
      entry_date: '2026-03-02',
    });
  });

  it('the chart at apply: codes the preconditions hold are theirs; the others clash once a chart lacks them or holds them inactive', () => {
    const id = (code: string) => `org_1:${code}`;
    const staged = decideJournalEntry(books(), request(), 'le_x');
    if (staged.outcome !== 'staged') throw new Error(staged.outcome);
    // Staged with a chart: every line's account is a precondition, nothing left to check.
    expect(unheldCodes(staged.plan, staged.preconditions, id)).to.deep.equal([]);
    // Staged without one: both codes, once each, by code.
    const bare = decideJournalEntry(books({ chart: [] }), request(), 'le_x');
    if (bare.outcome !== 'staged') throw new Error(bare.outcome);
    const codes = unheldCodes(bare.plan, bare.preconditions, id);
    expect(codes).to.deep.equal(['1600', '6855']);
    // Still no chart: any code.
    expect(chartClashes(codes, [], id)).to.deep.equal([]);
    // A chart holding 1600 active, 6855 inactive; then one without 6855.
    const chart = books().chart.map((a) => (a.code === '6855' ? { ...a, active: false } : a));
    expect(chartClashes(codes, chart, id)).to.deep.equal([
      { collection: 'ledger_accounts', id: 'org_1:6855', expected_version: 0, actual_version: 5 },
    ]);
    expect(
      chartClashes(
        codes,
        chart.filter((a) => a.code !== '6855'),
        id,
      ),
    ).to.deep.equal([{ collection: 'ledger_accounts', id: 'org_1:6855', expected_version: 0, actual_version: null }]);
    expect(chartClashes(codes, books().chart, id)).to.deep.equal([]);
  });

  it('summary and amount: Σ debits in the entry currency', () => {
    expect(journalEntry.summary(plan)).to.deep.equal({
      ledger_entry_id: 'le_x',
      lines: 2,
      debit_total_minor: 350,
      bank_transaction_id: 'bt_fee',
      linked_minor: 350,
      document_id: 'doc_1',
    });
    expect(journalEntry.amount(plan, {})).to.deep.equal({ amount_minor: 350, currency: 'EUR' });
  });
});
