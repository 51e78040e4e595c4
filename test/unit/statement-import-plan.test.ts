import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Decision } from '../../shared/domain/decision.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import type {
  ParsedStatement,
  ParsedStatementFile,
  StatementEntry,
} from '../../shared/kinds/statement-import/model.js';
import { parseStatementFile } from '../../shared/kinds/statement-import/parse.js';
import {
  decideStatementImport,
  type ExistingTransaction,
  type StatementImportBooks,
  type StatementImportPlan,
} from '../../shared/kinds/statement-import/plan.js';
import * as records from '../helpers/records.js';

const SHA = 'f'.repeat(64);
const account = records.account({
  id: 'ba_main',
  iban: 'DE89370400440532013000',
  account_number: '0532013000',
  opening_balance_minor: 1_000_00,
});

const e = (fields: Partial<StatementEntry> = {}): StatementEntry => ({
  booking_date: '2026-11-03',
  value_date: null,
  amount_minor: 100_00,
  currency: 'EUR',
  bank_reference: null,
  counterparty_name: null,
  counterparty_iban: null,
  remittance_info: null,
  details: [],
  pending: false,
  ...fields,
});
const stmt = (entries: StatementEntry[], fields: Partial<ParsedStatement> = {}): ParsedStatement => ({
  reference: 'S1',
  account: { iban: 'DE89 3704 0044 0532 0130 00', account_number: null },
  currency: 'EUR',
  start_date: '2026-11-03',
  end_date: '2026-11-03',
  opening_balance_minor: null,
  closing_balance_minor: null,
  entries,
  ...fields,
});
const file = (...statements: ParsedStatement[]): ParsedStatementFile => ({ format: 'camt053', statements });
const existing = (id: string, fields: Partial<ExistingTransaction> = {}): ExistingTransaction => ({
  id,
  booking_date: '2026-11-03',
  amount_minor: 100_00,
  bank_reference: null,
  counterparty_name: null,
  remittance_info: null,
  ...fields,
});
const books = (fields: Partial<StatementImportBooks> = {}): StatementImportBooks => ({
  account,
  transactions: [],
  counterparties: [],
  pending: [],
  lock_date: null,
  ...fields,
});

function planOf(decision: Decision<StatementImportPlan>): StatementImportPlan {
  if (decision.outcome !== 'staged' && decision.outcome !== 'noop')
    throw new Error(`expected a plan, got ${JSON.stringify(decision)}`);
  return decision.plan;
}
const newIds = (d: Decision<StatementImportPlan>) =>
  planOf(d).new_transactions.map((t) => t.bank_reference ?? t.amount_minor);
const skippedOf = (d: Decision<StatementImportPlan>) =>
  planOf(d).skipped.map((s) => [s.reason, s.existing_transaction_id]);

describe('statement import decision', () => {
  it('stages one new transaction per booked entry, batch details kept, with the exact plan', () => {
    const batch = [
      { amount_minor: 100_00, counterparty_name: 'One', remittance_info: 'Order 1', end_to_end_id: 'E1' },
      { amount_minor: 200_00, counterparty_name: 'Two', remittance_info: 'Order 2', end_to_end_id: 'E2' },
    ];
    const parsed = file(
      stmt(
        [
          e({
            amount_minor: 1_250_50,
            bank_reference: 'R1',
            counterparty_name: 'Müller GmbH',
            counterparty_iban: 'DE44500105175407324931',
            remittance_info: 'Rechnung 17',
            value_date: '2026-11-04',
          }),
          e({ amount_minor: -300_00, bank_reference: 'R2', details: batch }),
        ],
        { opening_balance_minor: 1_000_00, closing_balance_minor: 1_950_50, start_date: '2026-11-03' },
      ),
    );
    const decision = decideStatementImport(parsed, SHA, books());
    if (decision.outcome !== 'staged') throw new Error('expected staged');
    const ids = decision.plan.new_transactions.map((t) => t.id);
    expect(ids.every((id) => /^bt_imp_[0-9a-f]{24}$/.test(id))).to.equal(true);
    expect(new Set(ids).size).to.equal(2);
    const expected: StatementImportPlan = {
      bank_account_id: 'ba_main',
      format: 'camt053',
      file_sha256: SHA,
      statements: [
        {
          reference: 'S1',
          start_date: '2026-11-03',
          end_date: '2026-11-03',
          opening_balance_minor: 1_000_00,
          closing_balance_minor: 1_950_50,
          currency: 'EUR',
        },
      ],
      new_transactions: [
        {
          id: ids[0]!,
          booking_date: '2026-11-03',
          value_date: '2026-11-04',
          amount_minor: 1_250_50,
          currency: 'EUR',
          bank_reference: 'R1',
          counterparty_name: 'Müller GmbH',
          counterparty_iban: 'DE44500105175407324931',
          counterparty_id: null,
          remittance_info: 'Rechnung 17',
          details: [],
        },
        {
          id: ids[1]!,
          booking_date: '2026-11-03',
          value_date: null,
          amount_minor: -300_00,
          currency: 'EUR',
          bank_reference: 'R2',
          counterparty_name: null,
          counterparty_iban: null,
          counterparty_id: null,
          remittance_info: null,
          details: batch,
        },
      ],
      skipped: [],
    };
    expect(decision.plan).to.deep.equal(expected);
    expect(decision.plan_hash).to.equal(planHash(expected));
    expect(decision.warnings).to.deep.equal([]);
    expect(decision.locks).to.deep.equal({
      subject_key: 'statement_import:ba_main',
      entry_ids: [],
      transaction_ids: [],
    });
  });

  it('gives the same plan_hash for the same file on the same books, and new ids for another file', () => {
    const parsed = file(stmt([e({ bank_reference: 'R1' }), e({ bank_reference: 'R2' })]));
    const a = decideStatementImport(parsed, SHA, books());
    const b = decideStatementImport(parsed, SHA, books());
    const c = decideStatementImport(parsed, 'e'.repeat(64), books());
    if (a.outcome !== 'staged' || b.outcome !== 'staged' || c.outcome !== 'staged') throw new Error('expected staged');
    expect(a.plan_hash).to.equal(b.plan_hash);
    expect(c.plan.new_transactions[0]!.id).to.not.equal(a.plan.new_transactions[0]!.id);
  });

  describe('closed periods (lock date)', () => {
    it('skips entries booked on or before the lock date as period_locked, listed in the plan; later ones are new', () => {
      const d = decideStatementImport(
        file(
          stmt([
            e({ booking_date: '2025-01-01', bank_reference: 'R1', amount_minor: 10_00 }),
            e({ booking_date: '2025-01-31', bank_reference: 'R2', amount_minor: 20_00 }),
            e({ booking_date: '2025-02-01', bank_reference: 'R3', amount_minor: 30_00 }),
          ]),
        ),
        SHA,
        books({ lock_date: '2025-01-31' }),
      );
      expect(newIds(d)).to.deep.equal(['R3']);
      expect(planOf(d).skipped).to.deep.equal([
        {
          booking_date: '2025-01-01',
          amount_minor: 10_00,
          bank_reference: 'R1',
          reason: 'period_locked',
          existing_transaction_id: null,
        },
        {
          booking_date: '2025-01-31',
          amount_minor: 20_00,
          bank_reference: 'R2',
          reason: 'period_locked',
          existing_transaction_id: null,
        },
      ]);
    });

    it('answers noop when every entry is in a closed period', () => {
      const d = decideStatementImport(
        file(stmt([e({ booking_date: '2025-01-01' })])),
        SHA,
        books({ lock_date: '2025-01-31' }),
      );
      expect(d.outcome).to.equal('noop');
    });
  });

  describe('exact totals', () => {
    const big = 9_007_199_254_740_991; // 90071992547409.91 EUR: the largest safe amount
    it('refuses entries whose sum for the plan is beyond ±(2^53 − 1) with amount_out_of_range, never an inexact total', () => {
      const d = decideStatementImport(
        file(
          stmt([
            e({ amount_minor: big, bank_reference: 'A' }),
            e({ amount_minor: big, bank_reference: 'B' }),
            e({ amount_minor: big, bank_reference: 'C' }),
          ]),
        ),
        SHA,
        books({ account: { ...account, opening_balance_minor: 0 } }),
      );
      expect(d).to.deep.equal({
        outcome: 'refused',
        code: 'amount_out_of_range',
        details: { field: 'new_total_minor', value_minor: '27021597764222973', max_minor: big },
      });
    });

    it("refuses an import that would put the account's balance beyond the range", () => {
      const d = decideStatementImport(
        file(stmt([e({ amount_minor: 10, bank_reference: 'A' })])),
        SHA,
        books({
          account: { ...account, opening_balance_minor: big },
        }),
      );
      expect(d).to.deep.equal({
        outcome: 'refused',
        code: 'amount_out_of_range',
        details: { field: 'balance_after_minor', value_minor: '9007199254741001', max_minor: big },
      });
    });

    it("refuses a statement whose entries' sum is beyond the range, even when they are not new", () => {
      const d = decideStatementImport(
        file(
          stmt([e({ amount_minor: big }), e({ amount_minor: big })], {
            opening_balance_minor: 0,
            closing_balance_minor: 0,
          }),
        ),
        SHA,
        books({ account: { ...account, opening_balance_minor: 0 } }),
      );
      expect(d).to.deep.equal({
        outcome: 'refused',
        code: 'amount_out_of_range',
        details: { field: 'statements[1].entries_minor', value_minor: '18014398509481982', max_minor: big },
      });
    });
  });

  describe('duplicates', () => {
    it('skips an entry whose bank reference is already on the account, as same_bank_reference', () => {
      const d = decideStatementImport(
        file(stmt([e({ bank_reference: 'R1' }), e({ bank_reference: 'R2', amount_minor: 5_00 })])),
        SHA,
        books({ transactions: [existing('bt_old', { bank_reference: 'R1', amount_minor: 100_00 })] }),
      );
      expect(newIds(d)).to.deep.equal(['R2']);
      expect(planOf(d).skipped).to.deep.equal([
        {
          booking_date: '2026-11-03',
          amount_minor: 100_00,
          bank_reference: 'R1',
          reason: 'same_bank_reference',
          existing_transaction_id: 'bt_old',
        },
      ]);
    });

    it('answers noop when a re-imported file holds nothing new', () => {
      const parsed = file(stmt([e({ bank_reference: 'R1' }), e({ bank_reference: 'R2' })]));
      const d = decideStatementImport(
        parsed,
        SHA,
        books({
          transactions: [existing('bt_1', { bank_reference: 'R1' }), existing('bt_2', { bank_reference: 'R2' })],
        }),
      );
      expect(d.outcome).to.equal('noop');
      expect(skippedOf(d)).to.deep.equal([
        ['same_bank_reference', 'bt_1'],
        ['same_bank_reference', 'bt_2'],
      ]);
    });

    it('imports only the entries an overlapping file adds', () => {
      const parsed = file(
        stmt([
          e({ bank_reference: 'R2' }),
          e({ bank_reference: 'R3', booking_date: '2026-11-04' }),
          e({ bank_reference: 'R4', booking_date: '2026-11-05' }),
        ]),
      );
      const d = decideStatementImport(
        parsed,
        SHA,
        books({
          transactions: [existing('bt_1', { bank_reference: 'R1' }), existing('bt_2', { bank_reference: 'R2' })],
        }),
      );
      expect(newIds(d)).to.deep.equal(['R3', 'R4']);
    });

    it('imports both of two identical payments without references in one file', () => {
      const same = { counterparty_name: 'Getränke Kühn', remittance_info: 'Kaffee', amount_minor: -4_50 };
      const d = decideStatementImport(file(stmt([e(same), e(same)])), SHA, books());
      expect(planOf(d).new_transactions).to.have.length(2);
      expect(d.outcome).to.equal('staged');
    });

    it('with k entries of one fingerprint in the file and m on the account, imports max(0, k − m)', () => {
      const same = { counterparty_name: 'Getränke Kühn', remittance_info: 'Kaffee', amount_minor: -4_50 };
      const held = { counterparty_name: ' getränke  KÜHN ', remittance_info: 'kaffee', amount_minor: -4_50 };
      const three = file(stmt([e(same), e(same), e(same)]));
      const d1 = decideStatementImport(
        three,
        SHA,
        books({ transactions: [existing('bt_b', held), existing('bt_a', held)] }),
      );
      expect(planOf(d1).new_transactions).to.have.length(1);
      expect(skippedOf(d1)).to.deep.equal([
        ['same_fingerprint', 'bt_a'],
        ['same_fingerprint', 'bt_b'],
      ]);
      const d2 = decideStatementImport(
        file(stmt([e(same)])),
        SHA,
        books({ transactions: [existing('bt_a', held), existing('bt_b', held)] }),
      );
      expect(d2.outcome).to.equal('noop');
      expect(skippedOf(d2)).to.deep.equal([['same_fingerprint', 'bt_a']]);
    });

    it('never pairs an entry and a transaction that carry different bank references', () => {
      const d = decideStatementImport(
        file(stmt([e({ bank_reference: 'R9' })])),
        SHA,
        books({ transactions: [existing('bt_1', { bank_reference: 'R1' })] }),
      );
      expect(newIds(d)).to.deep.equal(['R9']);
    });

    it('does not count a transaction matched by its bank reference again for the fingerprint rule', () => {
      const d = decideStatementImport(
        file(stmt([e({ bank_reference: 'R1' }), e()])),
        SHA,
        books({ transactions: [existing('bt_1', { bank_reference: 'R1' })] }),
      );
      expect(newIds(d)).to.deep.equal([100_00]);
      expect(skippedOf(d)).to.deep.equal([['same_bank_reference', 'bt_1']]);
    });
  });

  describe('account and currency', () => {
    it('refuses a file of another account with account_mismatch', () => {
      const d = decideStatementImport(
        file(stmt([e()], { account: { iban: 'DE02120300000000202051', account_number: null } })),
        SHA,
        books(),
      );
      expect(d).to.deep.equal({
        outcome: 'refused',
        code: 'account_mismatch',
        details: {
          bank_account_id: 'ba_main',
          account_iban: 'DE89370400440532013000',
          account_number: '0532013000',
          file_accounts: ['DE02120300000000202051'],
        },
      });
    });

    it('matches an MT940 bank-code/number account by its number', () => {
      const d = decideStatementImport(
        file(stmt([e()], { account: { iban: null, account_number: '37040044/0532013000' } })),
        SHA,
        books(),
      );
      expect(d.outcome).to.equal('staged');
    });

    it('leaves out statements of other accounts in the same file, with a warning', () => {
      const d = decideStatementImport(
        file(
          stmt([e({ bank_reference: 'R1' })]),
          stmt([e({ bank_reference: 'X1' })], {
            reference: 'S2',
            account: { iban: 'DE02120300000000202051', account_number: null },
          }),
        ),
        SHA,
        books(),
      );
      expect(newIds(d)).to.deep.equal(['R1']);
      if (d.outcome !== 'staged') throw new Error('expected staged');
      expect(d.warnings.map((w) => [w.code, w.details])).to.deep.equal([
        ['other_account_statements_left_out', { statements: [{ reference: 'S2', account: 'DE02120300000000202051' }] }],
      ]);
    });

    it('refuses a statement in another currency with currency_mismatch', () => {
      const d = decideStatementImport(file(stmt([e({ currency: 'USD' })], { currency: 'USD' })), SHA, books());
      expect(d).to.deep.equal({
        outcome: 'refused',
        code: 'currency_mismatch',
        details: { account_currency: 'EUR', statement_currency: 'USD', statement_reference: 'S1' },
      });
    });

    it('leaves out single entries in another currency and lists them in foreign_currency_entries', () => {
      const d = decideStatementImport(
        file(stmt([e({ bank_reference: 'R1' }), e({ bank_reference: 'R2', currency: 'USD', amount_minor: -60_00 })])),
        SHA,
        books(),
      );
      expect(newIds(d)).to.deep.equal(['R1']);
      if (d.outcome !== 'staged') throw new Error('expected staged');
      expect(d.warnings.map((w) => [w.code, w.details])).to.deep.equal([
        [
          'foreign_currency_entries',
          { entries: [{ booking_date: '2026-11-03', amount_minor: -60_00, currency: 'USD', bank_reference: 'R2' }] },
        ],
      ]);
    });

    it('refuses an unknown account with not_found', () => {
      expect(decideStatementImport(file(stmt([e()])), SHA, books({ account: null }))).to.deep.equal({
        outcome: 'refused',
        code: 'not_found',
        details: { resource: 'bank_account' },
      });
    });
  });

  describe('warnings', () => {
    it('leaves out pending entries and counts them', () => {
      const d = decideStatementImport(
        file(stmt([e({ bank_reference: 'R1' }), e({ pending: true }), e({ pending: true })])),
        SHA,
        books(),
      );
      if (d.outcome !== 'staged') throw new Error('expected staged');
      expect(d.plan.new_transactions).to.have.length(1);
      expect(d.warnings.map((w) => [w.code, w.details])).to.deep.equal([['pending_entries_left_out', { count: 2 }]]);
    });

    it('stages an out-of-balance statement with the difference for the reviewer', () => {
      const d = decideStatementImport(
        file(stmt([e({ amount_minor: 50_00 })], { opening_balance_minor: 1_000_00, closing_balance_minor: 1_100_00 })),
        SHA,
        books(),
      );
      if (d.outcome !== 'staged') throw new Error('expected staged');
      expect(d.warnings.map((w) => [w.code, w.details])).to.deep.equal([
        [
          'statement_out_of_balance',
          {
            statements: [
              {
                reference: 'S1',
                opening_balance_minor: 1_000_00,
                entries_minor: 50_00,
                closing_balance_minor: 1_100_00,
                difference_minor: 50_00,
              },
            ],
          },
        ],
      ]);
    });

    it('reports opening_balance_differs when the account before the first day differs from the statement opening', () => {
      const d = decideStatementImport(
        file(
          stmt([e({ amount_minor: 10_00 })], {
            start_date: '2026-11-03',
            opening_balance_minor: 1_200_00,
            closing_balance_minor: 1_210_00,
          }),
        ),
        SHA,
        books({
          transactions: [
            existing('bt_1', { booking_date: '2026-11-02', amount_minor: 150_00 }),
            existing('bt_2', { booking_date: '2026-11-03', amount_minor: 7_00, bank_reference: 'Z' }),
          ],
        }),
      );
      if (d.outcome !== 'staged') throw new Error('expected staged');
      expect(d.warnings.map((w) => [w.code, w.details])).to.deep.equal([
        [
          'opening_balance_differs',
          {
            statement_reference: 'S1',
            date: '2026-11-03',
            account_balance_minor: 1_150_00,
            statement_opening_balance_minor: 1_200_00,
          },
        ],
      ]);
    });
  });

  describe('counterparty', () => {
    const counterparties = [
      { id: 'cp_mueller', name: 'Müller GmbH', ibans: ['DE44 5001 0517 5407 3249 31'] },
      { id: 'cp_a', name: 'Twin Ltd', ibans: [] },
      { id: 'cp_b', name: 'Twin Ltd.', ibans: [] },
    ];
    const cpOf = (entry: Partial<StatementEntry>) =>
      planOf(decideStatementImport(file(stmt([e(entry)])), SHA, books({ counterparties }))).new_transactions[0]!
        .counterparty_id;

    it('matches by IBAN first, then by normalised name, else leaves it null', () => {
      expect(cpOf({ counterparty_name: 'Someone else', counterparty_iban: 'de44500105175407324931' })).to.equal(
        'cp_mueller',
      );
      expect(cpOf({ counterparty_name: '  MÜLLER gmbh ' })).to.equal('cp_mueller');
      expect(cpOf({ counterparty_name: 'Unknown AG' })).to.equal(null);
    });

    it('leaves a name shared by two counterparties unmatched', () => {
      expect(cpOf({ counterparty_name: 'twin ltd' })).to.equal(null);
    });
  });

  describe('one pending import per account', () => {
    it('answers existing for the very same pending plan, pending_operation for another', () => {
      const parsed = file(stmt([e({ bank_reference: 'R1' })]));
      const first = decideStatementImport(parsed, SHA, books());
      if (first.outcome !== 'staged') throw new Error('expected staged');
      const holder = {
        staged_operation_id: 'so_1',
        subject_key: 'statement_import:ba_main',
        plan_hash: first.plan_hash,
      };
      expect(decideStatementImport(parsed, SHA, books({ pending: [holder] }))).to.deep.equal({
        outcome: 'existing',
        staged_operation_id: 'so_1',
      });
      expect(
        decideStatementImport(file(stmt([e({ bank_reference: 'R2' })])), SHA, books({ pending: [holder] })),
      ).to.deep.equal({ outcome: 'refused', code: 'pending_operation', details: { staged_operation_ids: ['so_1'] } });
    });
  });
});

describe('statement import samples (examples/statements/)', () => {
  const demoAccount = records.account({
    id: 'ba_org_demo_1',
    iban: 'DE89370400440532013000',
    account_number: '0532013000',
    opening_balance_minor: 1_000_00,
  });
  const csv = {
    date_column: 'Buchungstag',
    value_date_column: 'Valuta',
    counterparty_column: 'Empfänger/Auftraggeber',
    iban_column: 'IBAN',
    remittance_column: 'Verwendungszweck',
    amount_column: 'Betrag',
    currency_column: 'Währung',
    date_format: 'DD.MM.YYYY',
    decimal_separator: ',' as const,
    delimiter: ';',
    header: true,
    skip_rows: 3,
  };
  const samples: [string, number, string[]][] = [
    ['camt053-001-02.xml', 3, ['pending_entries_left_out']],
    ['camt053-001-08.xml', 3, ['opening_balance_differs']],
    ['ofx-1-sgml.ofx', 2, []],
    ['ofx-2-xml.ofx', 1, ['pending_entries_left_out', 'foreign_currency_entries']],
    ['mt940-de-subfields.sta', 3, ['opening_balance_differs']],
    ['mt940-nl-tags.sta', 2, ['opening_balance_differs']],
    ['bank-export.csv', 4, []],
  ];
  for (const [name, count, codes] of samples) {
    it(`stages ${name} on the demo books' main account: ${count} new transactions`, () => {
      const bytes = readFileSync(new URL(`../../../examples/statements/${name}`, import.meta.url));
      const parsed = parseStatementFile(bytes, {
        format: 'auto',
        encoding: null,
        csv: name.endsWith('.csv') ? csv : null,
        account_currency: 'EUR',
      });
      const d = decideStatementImport(parsed, SHA, books({ account: demoAccount }));
      if (d.outcome !== 'staged') throw new Error(`expected staged, got ${JSON.stringify(d)}`);
      expect(d.plan.new_transactions).to.have.length(count);
      expect(d.warnings.map((w) => w.code)).to.deep.equal(codes);
    });
  }
});
