// What new bank transactions add to the kept figures (shared/domain/figure-additions.ts):
// exact additions, and kept figures plus the additions equal the figures
// computed over the old and the new transactions together.
import { expect } from 'chai';
import { accountSums, counterpartyFigures } from '../../shared/domain/book-figures.js';
import {
  addSums,
  laterName,
  rowKey,
  transactionAdditions,
  type AddedTransaction,
} from '../../shared/domain/figure-additions.js';
import { bankSide, type PostingAccount } from '../../shared/domain/ledger-postings.js';
import { addDayRows, dayRows } from '../../shared/domain/trial-balance-days.js';

const accounts: PostingAccount[] = [
  { id: 'ba_1', currency: 'EUR', ledger_account: '1200', opening_balance_minor: 10_000 },
  { id: 'ba_2', currency: 'EUR', ledger_account: '1210', opening_balance_minor: 0 },
];

const txn = (
  id: string,
  account: string,
  date: string,
  amount: number,
  cp: string | null,
  name: string,
): AddedTransaction => ({
  id,
  bank_account_id: account,
  booking_date: date,
  amount_minor: amount,
  currency: 'EUR',
  status: 'unreconciled',
  counterparty_id: cp,
  counterparty_name: name,
});

const old = [
  txn('bt_01', 'ba_1', '2026-03-01', 5_000, 'cp_a', 'Alpha GmbH'),
  txn('bt_02', 'ba_1', '2026-03-04', -1_200, 'cp_b', 'Beta'),
  { ...txn('bt_03', 'ba_2', '2026-03-04', 700, 'cp_a', 'ALPHA'), status: 'reconciled' as const },
];
const added = [
  txn('bt_10', 'ba_1', '2026-03-04', 2_500, 'cp_a', 'Alpha AG'),
  txn('bt_11', 'ba_1', '2026-02-27', 300, 'cp_a', 'alpha (old)'),
  txn('bt_12', 'ba_1', '2026-03-09', -80, null, ''),
  txn('bt_13', 'ba_2', '2026-03-04', -400, 'cp_c', 'Gamma'),
];

describe('kept figures by addition', () => {
  it('adds each account its sums, each row its count, unlinked remainder and latest name, each day its postings', () => {
    const a = transactionAdditions(added, accounts);
    expect([...a.accounts]).to.deep.equal([
      [
        'ba_1',
        { bank_account_id: 'ba_1', amount_sum_minor: 2_720, unreconciled_count: 3, unreconciled_sum_minor: 2_720 },
      ],
      [
        'ba_2',
        { bank_account_id: 'ba_2', amount_sum_minor: -400, unreconciled_count: 1, unreconciled_sum_minor: -400 },
      ],
    ]);
    expect(a.rows.get(rowKey('ba_1', 'cp_a'))).to.deep.equal({
      bank_account_id: 'ba_1',
      counterparty_id: 'cp_a',
      transactions: 2,
      unlinked_bank_minor: 2_800,
      latest: { key: '2026-03-04 bt_10', name: 'Alpha AG' },
    });
    // An outgoing payment's remainder is its size: unlinked counts it as the whole computation does.
    expect(a.rows.get(rowKey('ba_2', 'cp_c'))).to.deep.include({ transactions: 1, unlinked_bank_minor: 400 });
    expect([...a.rows.keys()]).to.have.length(2);
    expect([...a.counterparties]).to.deep.equal([
      ['cp_a', { key: '2026-03-04 bt_10', name: 'Alpha AG' }],
      ['cp_c', { key: '2026-03-04 bt_13', name: 'Gamma' }],
    ]);
    expect(a.days.get('2026-03-04')).to.deep.equal([
      { account: '1200', currency: 'EUR', debit_minor: '2500', credit_minor: '0' },
      { account: '1210', currency: 'EUR', debit_minor: '0', credit_minor: '400' },
      { account: 'SUSPENSE', currency: 'EUR', debit_minor: '400', credit_minor: '2500' },
    ]);
    expect([...a.days.keys()].sort()).to.deep.equal(['2026-02-27', '2026-03-04', '2026-03-09']);
  });

  it('kept figures plus the additions are the figures of the old and the new transactions together', () => {
    const a = transactionAdditions(added, accounts);
    const before = counterpartyFigures(['cp_a', 'cp_b', 'cp_c'], old, [], [], []);
    const after = counterpartyFigures(['cp_a', 'cp_b', 'cp_c'], [...old, ...added], [], [], []);
    for (const row of after.accounts) {
      const kept = before.accounts.find(
        (r) => r.bank_account_id === row.bank_account_id && r.counterparty_id === row.counterparty_id,
      );
      const plus = a.rows.get(rowKey(row.bank_account_id, row.counterparty_id));
      const name = plus
        ? laterName(kept?.name_key ? { key: kept.name_key, name: kept.name } : null, plus.latest)
        : { key: kept!.name_key, name: kept!.name };
      expect({
        transactions: (kept?.transactions ?? 0) + (plus?.transactions ?? 0),
        unlinked_bank_minor: (kept?.unlinked_bank_minor ?? 0) + (plus?.unlinked_bank_minor ?? 0),
        name: name.name,
        name_key: name.key,
      }).to.deep.equal({
        transactions: row.transactions,
        unlinked_bank_minor: row.unlinked_bank_minor,
        name: row.name,
        name_key: row.name_key,
      });
    }
    for (const cp of after.counterparties) {
      const kept = before.counterparties.find((c) => c.counterparty_id === cp.counterparty_id)!;
      const plus = a.counterparties.get(cp.counterparty_id);
      const name = plus
        ? laterName(kept.name_key ? { key: kept.name_key, name: kept.name } : null, plus)
        : { key: kept.name_key, name: kept.name };
      expect({ name: name.name, name_key: name.key }).to.deep.equal({ name: cp.name, name_key: cp.name_key });
    }
    for (const account of ['ba_1', 'ba_2'])
      expect(
        addSums(
          accountSums(
            account,
            old.filter((t) => t.bank_account_id === account),
          ),
          a.accounts.get(account)!,
        ),
      ).to.deep.equal(
        accountSums(
          account,
          [...old, ...added].filter((t) => t.bank_account_id === account),
        ),
      );
    const days = (ts: readonly AddedTransaction[]) =>
      dayRows(bankSide({ settlementAccounts: [], accounts, entries: [], transactions: ts, links: [] }));
    const keptDays = days(old);
    const allDays = days([...old, ...added]);
    for (const [date, rows] of allDays)
      expect(addDayRows(keptDays.get(date) ?? [], a.days.get(date) ?? []), date).to.deep.equal(rows);
  });

  it('sums day rows exactly beyond 2^53 and keeps them by account, then currency', () => {
    expect(
      addDayRows(
        [
          { account: '1200', currency: 'USD', debit_minor: '9007199254740993', credit_minor: '0' },
          { account: '1200', currency: 'EUR', debit_minor: '1', credit_minor: '2' },
        ],
        [
          { account: '1100', currency: 'EUR', debit_minor: '0', credit_minor: '5' },
          { account: '1200', currency: 'USD', debit_minor: '9007199254740993', credit_minor: '1' },
        ],
      ),
    ).to.deep.equal([
      { account: '1100', currency: 'EUR', debit_minor: '0', credit_minor: '5' },
      { account: '1200', currency: 'EUR', debit_minor: '1', credit_minor: '2' },
      { account: '1200', currency: 'USD', debit_minor: '18014398509481986', credit_minor: '1' },
    ]);
  });

  it('keeps the later name by (booking date, id), a kept one when the added is earlier', () => {
    const kept = { key: '2026-03-04 bt_05', name: 'Kept' };
    expect(laterName(kept, { key: '2026-03-04 bt_04', name: 'Earlier' })).to.equal(kept);
    expect(laterName(kept, { key: '2026-03-04 bt_06', name: 'Later' })).to.deep.equal({
      key: '2026-03-04 bt_06',
      name: 'Later',
    });
    expect(laterName(null, { key: '2026-01-01 bt_01', name: null })).to.deep.equal({
      key: '2026-01-01 bt_01',
      name: null,
    });
  });
});
