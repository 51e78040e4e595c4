// Generated books for the hledger/beancount exchange tests (docs/guide/ledger-exchange.md
// "How the tests check it"): with reversals, a chart or none, and a USD
// account of its own whose reconciliation leaves a transaction out.
import type { BooksFile } from '../../shared/domain/books-file.js';
import { generateBooks } from '../../shared/demo/books-generator.js';

/** Generated books, plus a USD account with its own ledger account and a JPY one, and a reconciliation that leaves one transaction out. */
export function exportTestBooks(seed: number, chart: boolean): BooksFile {
  const orgId = `org_exp_${seed}_${chart ? 'c' : 'n'}_${Math.random().toString(16).slice(2, 8)}`;
  const file = generateBooks({ org_id: orgId, size: 300, seed });
  if (!chart) delete file.accounts;
  else
    file.accounts = [
      ...(file.accounts ?? []),
      { code: '1220', name: 'Bank USD; "quoted"', type: 'asset', active: true },
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
  const txn = (id: string, date: string, amount: number) =>
    file.bank_transactions.push({
      id: `bt_${orgId}_${id}`,
      bank_account_id: usd,
      booking_date: date,
      amount_minor: amount,
      currency: 'USD',
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
  return file;
}
