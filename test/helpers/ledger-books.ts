// Generated books for the hledger/beancount exchange tests (docs/guide/ledger-exchange.md
// "How the tests check it"): with reversals, a chart or none, a USD account
// of its own whose reconciliation leaves a transaction out, a JPY account (no
// decimals) settling a JPY invoice, a second EUR account on the main one's
// ledger account, and codes the naming rule must change (lower case, `.`, `_`,
// two codes that name alike).
import type { BooksFile } from '../../shared/domain/books-file.js';
import { generateBooks } from '../../shared/demo/books-generator.js';

/** Generated books, plus the accounts, entries and transactions above. */
export function exportTestBooks(seed: number, chart: boolean): BooksFile {
  const orgId = `org_exp_${seed}_${chart ? 'c' : 'n'}_${Math.random().toString(16).slice(2, 8)}`;
  const file = generateBooks({ org_id: orgId, size: 300, seed });
  if (!chart) delete file.accounts;
  else
    file.accounts = [
      ...(file.accounts ?? []),
      { code: '1220', name: 'Bank USD; "quoted"', type: 'asset', active: true },
      { code: '1230', name: 'Bank JPY', type: 'asset', active: true },
      { code: 'a.1', name: 'Petty cash a.1', type: 'expense', active: true },
      { code: 'a-1', name: 'Petty cash a-1', type: 'expense', active: true },
      { code: 'kasse_1', name: 'Kasse 1', type: 'asset', active: true },
    ];
  const usd = `ba_${orgId}_usd`;
  file.bank_accounts.push({
    id: usd,
    name: 'Dollar account',
    currency: 'USD',
    ledger_account: '1220',
    reconciled_through: { date: '2025-03-31', balance_minor: 50_000 + 1_999 },
    opening_balance_minor: 50_000,
  });
  const txn = (id: string, date: string, amount: number, account = usd, currency = 'USD') =>
    file.bank_transactions.push({
      id: `bt_${orgId}_${id}`,
      bank_account_id: account,
      booking_date: date,
      amount_minor: amount,
      currency,
      counterparty_id: null,
      counterparty_name: 'Wire, "Inc."; Ltd | Co',
      remittance_info: 'Fee\tand\nnew line; 50% \\ off',
      status: 'unreconciled',
      reconciliation_id: null,
    });
  txn('u1', '2025-03-02', 1_999);
  // Dated inside the reconciled period but left out of the reconciliation: the balance cannot be asserted.
  txn('u2', '2025-03-15', -700);
  txn('u3', '2025-05-01', 12_345);

  // A second EUR account on the main account's ledger account: each has its own sub-account.
  const sharing = `ba_${orgId}_eur2`;
  file.bank_accounts.push({
    id: sharing,
    name: 'Second account on 1200',
    currency: 'EUR',
    ledger_account: file.bank_accounts[0]!.ledger_account,
    reconciled_through: null,
    opening_balance_minor: 7_500,
  });
  txn('s1', '2025-02-03', 2_050, sharing, 'EUR');
  txn('s2', '2025-05-04', -1_010, sharing, 'EUR');

  // A JPY account of its own; a JPY invoice it settles in part.
  const jpy = `ba_${orgId}_jpy`;
  file.bank_accounts.push({
    id: jpy,
    name: 'Yen account',
    currency: 'JPY',
    ledger_account: '1230',
    reconciled_through: null,
    opening_balance_minor: 100_000,
  });
  const entry = (id: string, date: string, currency: string, lines: Array<[string, number]>) =>
    file.ledger_entries.push({
      id: `le_${orgId}_${id}`,
      entry_date: date,
      description: `Entry ${id}`,
      reference: id.toUpperCase(),
      counterparty_id: `cp_${orgId}_${id}`,
      currency,
      lines: lines.map(([account, amount]) => ({
        account,
        debit_minor: amount > 0 ? amount : 0,
        credit_minor: amount < 0 ? -amount : 0,
      })),
      status: 'posted',
      reversal_of: null,
      reversed_by: null,
    });
  entry('jp', '2025-02-10', 'JPY', [
    ['1400', 15_000],
    ['8400', -15_000],
  ]);
  txn('j1', '2025-02-20', 12_000, jpy, 'JPY');
  file.bank_links.push({
    id: `lnk_${orgId}_j1`,
    bank_transaction_id: `bt_${orgId}_j1`,
    ledger_entry_id: `le_${orgId}_jp`,
    amount_minor: 12_000,
    created_at: '2025-02-21T09:00:00.000Z',
    created_by: 'alice',
  });
  // Codes the naming rule changes: `a.1` and `a-1` both name `…:A-1`, the second gets `-2`.
  entry('codes', '2025-02-11', 'EUR', [
    ['a.1', 500],
    ['a-1', -300],
    ['kasse_1', -200],
  ]);
  return file;
}
