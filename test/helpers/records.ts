// Builders for domain records in unit tests: one valid record of each kind
// with plain defaults (EUR, account ba_main, counterparty cp_1, version 1),
// every field overridable. A test states the fields its rule reads and
// leaves the rest to these defaults. (HTTP tests build whole books files with
// test/helpers/books.ts instead.)
import type {
  BankAccount,
  BankLink,
  BankTransaction,
  LedgerEntry,
  LedgerLine,
  Org,
} from '../../shared/domain/books.js';

export function org(over: Partial<Org> = {}): Org {
  return {
    id: 'org_1',
    name: 'Org',
    base_currency: 'EUR',
    lock_date: null,
    settlement_accounts: ['1400', '1600'],
    require_distinct_approver: true,
    version: 1,
    ...over,
  };
}

export function account(over: Partial<BankAccount> = {}): BankAccount {
  return {
    id: 'ba_main',
    name: 'Main',
    currency: 'EUR',
    ledger_account: '1200',
    reconciled_through: null,
    opening_balance_minor: 0,
    version: 1,
    ...over,
  };
}

/** A customer invoice's lines: debit 1400 / credit 8400 (open amount +amount). */
export function receivableLines(amount: number): LedgerLine[] {
  return [
    { account: '1400', debit_minor: amount, credit_minor: 0 },
    { account: '8400', debit_minor: 0, credit_minor: amount },
  ];
}

/** A supplier bill's lines: debit 4000 / credit 1600 (open amount −amount). */
export function payableLines(amount: number): LedgerLine[] {
  return [
    { account: '4000', debit_minor: amount, credit_minor: 0 },
    { account: '1600', debit_minor: 0, credit_minor: amount },
  ];
}

/** A posted entry; description and reference follow its id unless given. */
export function entry(over: Partial<LedgerEntry> = {}): LedgerEntry {
  const id = over.id ?? 'le_1';
  return {
    id,
    entry_date: '2025-01-01',
    description: `Entry ${id}`,
    reference: id.toUpperCase(),
    counterparty_id: 'cp_1',
    currency: 'EUR',
    lines: receivableLines(10_000),
    status: 'posted',
    reversal_of: null,
    reversed_by: null,
    version: 1,
    ...over,
  };
}

/** An unreconciled transaction of ba_main with cp_1; `amount_minor` is signed (+ in, − out). */
export function txn(over: Partial<BankTransaction> = {}): BankTransaction {
  return {
    id: 'bt_1',
    bank_account_id: 'ba_main',
    booking_date: '2025-01-01',
    amount_minor: 10_000,
    currency: 'EUR',
    counterparty_id: 'cp_1',
    counterparty_name: 'Counterparty',
    remittance_info: '',
    status: 'unreconciled',
    reconciliation_id: null,
    version: 1,
    ...over,
  };
}

export function link(over: Partial<BankLink> = {}): BankLink {
  return {
    id: 'lnk_1',
    bank_transaction_id: 'bt_1',
    ledger_entry_id: 'le_1',
    amount_minor: 10_000,
    created_at: '2025-01-01T00:00:00.000Z',
    created_by: 'alice',
    version: 1,
    ...over,
  };
}
