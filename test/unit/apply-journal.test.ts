import { expect } from 'chai';
import {
  INSERT_BATCH_LIMITS,
  journalStepEnd,
  type ApplyBooks,
  type JournalContext,
  type JournalWrite,
} from '../../shared/domain/apply-journal.js';
import { journalFromPlan, planJournal, planJournalWithLinks } from '../../shared/kinds/journals.js';
import { repairLinkId } from '../../shared/kinds/ledger-link-repair/journal.js';
import { reversingEntryId } from '../../shared/kinds/ledger-reversal/journal.js';
import { statementImportJournal } from '../../shared/kinds/statement-import/journal.js';
import type { StatementImportPlan } from '../../shared/kinds/statement-import/plan.js';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry } from '../../shared/domain/books.js';

const ctx: JournalContext = {
  staged_operation_id: 'stg_1',
  org_id: 'org_1',
  actor: 'bob',
  now: '2026-03-10T12:00:00.000Z',
};
const none: ApplyBooks = { entries: [], accounts: [], transactions: [], links: [] };

const entry = (id: string, fields: Partial<LedgerEntry> = {}): LedgerEntry => ({
  id,
  entry_date: '2026-02-01',
  description: 'Invoice',
  reference: `REF-${id}`,
  counterparty_id: 'cp_1',
  currency: 'EUR',
  lines: [
    { account: '1400', debit_minor: 1_000, credit_minor: 0 },
    { account: '8400', debit_minor: 0, credit_minor: 1_000 },
  ],
  status: 'posted',
  reversal_of: null,
  reversed_by: null,
  version: 3,
  ...fields,
});
const txn = (id: string, fields: Partial<BankTransaction> = {}): BankTransaction => ({
  id,
  bank_account_id: 'ba_1',
  booking_date: '2026-02-10',
  amount_minor: 1_000,
  currency: 'EUR',
  counterparty_id: 'cp_1',
  counterparty_name: 'A',
  remittance_info: '',
  status: 'unreconciled',
  reconciliation_id: null,
  version: 2,
  ...fields,
});
const link = (id: string, t: string, e: string, amount: number, version = 1): BankLink => ({
  id,
  bank_transaction_id: t,
  ledger_entry_id: e,
  amount_minor: amount,
  created_at: '2026-02-10T00:00:00.000Z',
  created_by: 'alice',
  version,
});
const account: BankAccount = {
  id: 'ba_1',
  name: 'Main',
  currency: 'EUR',
  ledger_account: '1200',
  reconciled_through: { date: '2026-01-31', balance_minor: 500 },
  opening_balance_minor: 0,
  version: 4,
};
const written = (r: ReturnType<typeof planJournal>) => {
  if (!r.ok) throw r.error;
  return r.value;
};

describe('apply journal', () => {
  it('reconciliation: each transaction reconciled with the operation id, then the account moved to the statement', () => {
    const plan = {
      bank_account_id: 'ba_1',
      statement: { end_date: '2026-02-28', closing_balance_minor: 1_700, currency: 'EUR', reference: null },
      opening_balance_minor: 500,
      cleared_total_minor: 1_200,
      closing_balance_minor: 1_700,
      transactions: [
        { bank_transaction_id: 'bt_1', booking_date: '2026-02-03', amount_minor: 1_000, links: [] },
        { bank_transaction_id: 'bt_2', booking_date: '2026-02-04', amount_minor: 200, links: [] },
      ],
      left_out: { count: 0, first_ids: [] },
    };
    const books = { ...none, accounts: [account], transactions: [txn('bt_2', { version: 5 }), txn('bt_1')] };
    expect(written(planJournal('bank_reconcile', plan, books, ctx))).to.deep.equal([
      {
        action: 'update',
        collection: 'bank_transactions',
        id: 'bt_1',
        version: 2,
        set: { status: 'reconciled', reconciliation_id: 'stg_1' },
        before: { status: 'unreconciled', reconciliation_id: null },
      },
      {
        action: 'update',
        collection: 'bank_transactions',
        id: 'bt_2',
        version: 5,
        set: { status: 'reconciled', reconciliation_id: 'stg_1' },
        before: { status: 'unreconciled', reconciliation_id: null },
      },
      {
        action: 'update',
        collection: 'bank_accounts',
        id: 'ba_1',
        version: 4,
        set: { reconciled_through: { date: '2026-02-28', balance_minor: 1_700 } },
        before: { reconciled_through: { date: '2026-01-31', balance_minor: 500 } },
      },
    ]);
  });

  it('reversal: inserts the reversing entry, marks the original reversed by it, deletes its links', () => {
    const plan = {
      ledger_entry_id: 'le_1',
      reversal_date: '2026-03-01',
      reason: null,
      reversing_entry: {
        entry_date: '2026-03-01',
        description: 'Reversal of le_1',
        reference: 'REF-le_1',
        counterparty_id: 'cp_1',
        currency: 'EUR',
        lines: [
          { account: '1400', debit_minor: 0, credit_minor: 1_000 },
          { account: '8400', debit_minor: 1_000, credit_minor: 0 },
        ],
        reversal_of: 'le_1',
      },
      actions: [
        { kind: 'unlink', bank_transaction_id: 'bt_1', link_id: 'lnk_1', ledger_entry_id: 'le_1', amount_minor: 1_000 },
      ],
    };
    const newId = reversingEntryId(ctx);
    expect(newId).to.match(/^le_[0-9a-f]{24}$/);
    expect(
      written(
        planJournal(
          'ledger_reversal',
          plan,
          { ...none, entries: [entry('le_1')], links: [link('lnk_1', 'bt_1', 'le_1', 1_000, 7)] },
          ctx,
        ),
      ),
    ).to.deep.equal([
      {
        action: 'insert',
        collection: 'ledger_entries',
        id: newId,
        doc: {
          entry_date: '2026-03-01',
          description: 'Reversal of le_1',
          reference: 'REF-le_1',
          counterparty_id: 'cp_1',
          currency: 'EUR',
          lines: [
            { account: '1400', debit_minor: 0, credit_minor: 1_000 },
            { account: '8400', debit_minor: 1_000, credit_minor: 0 },
          ],
          status: 'posted',
          reversal_of: 'le_1',
          reversed_by: null,
          version: 1,
        },
      },
      {
        action: 'update',
        collection: 'ledger_entries',
        id: 'le_1',
        version: 3,
        set: { status: 'reversed', reversed_by: newId },
        before: { status: 'posted', reversed_by: null },
      },
      {
        action: 'delete',
        collection: 'bank_links',
        id: 'lnk_1',
        version: 7,
        doc: {
          bank_transaction_id: 'bt_1',
          ledger_entry_id: 'le_1',
          amount_minor: 1_000,
          created_at: '2026-02-10T00:00:00.000Z',
          created_by: 'alice',
          version: 7,
        },
      },
    ]);
  });

  it('repair: a move deletes the emptied link and creates the link to the target; a partial move and a link add to existing links; an unlink lowers one', () => {
    const plan = {
      bank_account_id: 'ba_1',
      counterparty_id: 'cp_1',
      as_of: '2026-02-28',
      summary: {},
      actions: [
        {
          kind: 'move',
          bank_transaction_id: 'bt_1',
          link_id: 'lnk_a',
          from_ledger_entry_id: 'le_b',
          to_ledger_entry_id: 'le_a',
          amount_minor: 600,
        },
        {
          kind: 'move',
          bank_transaction_id: 'bt_2',
          link_id: 'lnk_c',
          from_ledger_entry_id: 'le_b',
          to_ledger_entry_id: 'le_c',
          amount_minor: 100,
        },
        { kind: 'link', bank_transaction_id: 'bt_2', ledger_entry_id: 'le_c', amount_minor: 50 },
        { kind: 'unlink', bank_transaction_id: 'bt_3', link_id: 'lnk_e', ledger_entry_id: 'le_x', amount_minor: 30 },
      ],
    };
    const links = [
      link('lnk_a', 'bt_1', 'le_b', 600, 2),
      link('lnk_c', 'bt_2', 'le_b', 300, 1),
      link('lnk_d', 'bt_2', 'le_c', 200, 4),
      link('lnk_e', 'bt_3', 'le_x', 80, 1),
    ];
    const created = repairLinkId(ctx, 'bt_1', 'le_a');
    expect(written(planJournal('ledger_link_repair', plan, { ...none, links }, ctx))).to.deep.equal([
      {
        action: 'delete',
        collection: 'bank_links',
        id: 'lnk_a',
        version: 2,
        doc: {
          bank_transaction_id: 'bt_1',
          ledger_entry_id: 'le_b',
          amount_minor: 600,
          created_at: '2026-02-10T00:00:00.000Z',
          created_by: 'alice',
          version: 2,
        },
      },
      {
        action: 'insert',
        collection: 'bank_links',
        id: created,
        doc: {
          bank_transaction_id: 'bt_1',
          ledger_entry_id: 'le_a',
          amount_minor: 600,
          created_at: '2026-03-10T12:00:00.000Z',
          created_by: 'bob',
          version: 1,
        },
      },
      {
        action: 'update',
        collection: 'bank_links',
        id: 'lnk_c',
        version: 1,
        set: { amount_minor: 200 },
        before: { amount_minor: 300 },
      },
      {
        action: 'update',
        collection: 'bank_links',
        id: 'lnk_d',
        version: 4,
        set: { amount_minor: 350 },
        before: { amount_minor: 200 },
      },
      {
        action: 'update',
        collection: 'bank_links',
        id: 'lnk_e',
        version: 1,
        set: { amount_minor: 50 },
        before: { amount_minor: 80 },
      },
    ]);
    // What the apply result records: the link each moved or new amount went to (a new one, or the transaction's existing link to the entry).
    const withLinks = planJournalWithLinks('ledger_link_repair', plan, { ...none, links }, ctx);
    expect(withLinks.ok && withLinks.value.links).to.deep.equal([
      { action_index: 0, link_id: created },
      { action_index: 1, link_id: 'lnk_d' },
      { action_index: 2, link_id: 'lnk_d' },
    ]);
  });

  it('fails (apply ends failed, nothing written) when the plan does not fit the books it was checked against', () => {
    const r = planJournal(
      'ledger_link_repair',
      {
        actions: [
          { kind: 'unlink', bank_transaction_id: 'bt_1', link_id: 'lnk_1', ledger_entry_id: 'le_1', amount_minor: 900 },
        ],
      },
      { ...none, links: [link('lnk_1', 'bt_1', 'le_1', 500)] },
      ctx,
    );
    expect(r.ok).to.equal(false);
    if (!r.ok)
      expect({ code: r.error.code, details: r.error.details }).to.deep.equal({
        code: 'apply_failed',
        details: { reason: 'bank_link_amount_too_small', id: 'lnk_1' },
      });
  });

  it("a statement import's journal is derived from its plan alone, so the operation need not store it; the other kinds read the books and are stored", () => {
    const plan = {
      bank_account_id: 'ba_1',
      format: 'csv',
      statements: [],
      skipped: [],
      new_transactions: [
        {
          id: 'bt_new',
          booking_date: '2026-02-10',
          value_date: '2026-02-11',
          amount_minor: -1_250,
          currency: 'EUR',
          bank_reference: 'REF-1',
          counterparty_name: null,
          counterparty_iban: 'DE89370400440532013000',
          counterparty_id: 'cp_1',
          remittance_info: null,
          details: [],
        },
      ],
    } as unknown as StatementImportPlan;
    expect(journalFromPlan('statement_import', plan)).to.deep.equal([
      {
        action: 'insert',
        collection: 'bank_transactions',
        id: 'bt_new',
        doc: {
          bank_account_id: 'ba_1',
          booking_date: '2026-02-10',
          value_date: '2026-02-11',
          amount_minor: -1_250,
          currency: 'EUR',
          counterparty_id: 'cp_1',
          counterparty_name: '',
          counterparty_iban: 'DE89370400440532013000',
          remittance_info: '',
          bank_reference: 'REF-1',
          status: 'unreconciled',
          reconciliation_id: null,
          version: 1,
        },
      },
    ]);
    expect(journalFromPlan('statement_import', plan)).to.deep.equal(
      written(planJournal('statement_import', plan, none, ctx)),
    );
    for (const kind of ['bank_reconcile', 'ledger_reversal', 'ledger_link_repair', 'inbox_duplicates_resolve'] as const)
      expect(journalFromPlan(kind, {}), kind).to.equal(null);
  });
});

describe('apply journal steps (journalStepEnd)', () => {
  const ins = (id: string, collection: JournalWrite['collection'] = 'bank_transactions', bytes = 10): JournalWrite => ({
    action: 'insert',
    collection,
    id,
    doc: { memo: 'x'.repeat(bytes) },
  });
  const upd = (id: string): JournalWrite => ({
    action: 'update',
    collection: 'bank_links',
    id,
    version: 1,
    set: { amount_minor: 1 },
    before: { amount_minor: 2 },
  });
  const del = (id: string): JournalWrite => ({ action: 'delete', collection: 'bank_links', id, version: 1, doc: {} });
  const steps = (
    writes: JournalWrite[],
    limits = INSERT_BATCH_LIMITS,
    stopAfter?: (n: number) => boolean,
  ): number[][] => {
    const out: number[][] = [];
    for (let from = 0; from < writes.length;) {
      const end = journalStepEnd(writes, from, limits, stopAfter);
      out.push([from, end]);
      from = end;
    }
    return out;
  };

  it('a run of consecutive writes into one collection is one step; a new collection starts a new one', () => {
    expect(steps([ins('a'), ins('b'), ins('c')])).to.deep.equal([[0, 3]]);
    expect(
      steps([upd('l1'), del('l2'), ins('l3', 'bank_links'), upd('l4')]),
      'updates, deletes and inserts',
    ).to.deep.equal([[0, 4]]);
    const org: JournalWrite = { action: 'update', collection: 'orgs', id: 'org_1', version: 1, set: {}, before: {} };
    expect(steps([org, org]), "an organisation's own document is a step alone").to.deep.equal([
      [0, 1],
      [1, 2],
    ]);
    expect(steps([ins('a'), upd('l1'), ins('b'), ins('c'), del('l2'), ins('d')])).to.deep.equal([
      [0, 1],
      [1, 2],
      [2, 4],
      [4, 5],
      [5, 6],
    ]);
    expect(
      steps([ins('a'), ins('b', 'bank_links'), ins('c', 'bank_links')]),
      'a new collection starts a new step',
    ).to.deep.equal([
      [0, 1],
      [1, 3],
    ]);
    expect(journalStepEnd([], 0)).to.equal(0);
  });

  it('a step holds at most `writes` inserts and about `bytes` of documents; one larger insert is still a step of one', () => {
    const run = Array.from({ length: 2_001 }, (_, i) => ins(`bt_${i}`));
    expect(steps(run)).to.deep.equal([
      [0, 1_000],
      [1_000, 2_000],
      [2_000, 2_001],
    ]);
    expect(steps(run.slice(0, 5), { writes: 2, bytes: 1_000_000 })).to.deep.equal([
      [0, 2],
      [2, 4],
      [4, 5],
    ]);
    const big = [
      ins('a', 'bank_transactions', 600),
      ins('b', 'bank_transactions', 600),
      ins('c', 'bank_transactions', 2_000),
      ins('d'),
    ];
    expect(steps(big, { writes: 500, bytes: 1_000 })).to.deep.equal([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
  });

  it('a step never runs past a write `stopAfter` names (a test-fault point)', () => {
    const run = Array.from({ length: 10 }, (_, i) => ins(`bt_${i}`));
    expect(steps(run, INSERT_BATCH_LIMITS, (n) => n === 2 || n === 7)).to.deep.equal([
      [0, 2],
      [2, 7],
      [7, 10],
    ]);
  });

  it('a statement import journal of 2,050 transactions is three steps, not 2,050', () => {
    const plan = {
      bank_account_id: 'ba_1',
      new_transactions: Array.from({ length: 2_050 }, (_, i) => ({
        id: `bt_${i}`,
        booking_date: '2026-02-10',
        value_date: null,
        amount_minor: 100 + i,
        currency: 'EUR',
        counterparty_id: null,
        counterparty_name: 'A',
        counterparty_iban: null,
        remittance_info: `invoice ${i}`,
        bank_reference: `REF-${i}`,
      })),
    } as unknown as StatementImportPlan;
    expect(steps(statementImportJournal(plan))).to.deep.equal([
      [0, 1_000],
      [1_000, 2_000],
      [2_000, 2_050],
    ]);
  });
});
