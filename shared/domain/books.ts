// Plain book records as the domain sees them: `id` instead of MongoDB's `_id`,
// no org_id (every function works inside one organisation), money in integer
// minor units. Repositories translate between these and stored documents.

/** ISO date `YYYY-MM-DD`; compares correctly as a string. */
export type IsoDate = string;

export interface Org {
  id: string;
  name: string;
  base_currency: string;
  lock_date: IsoDate | null;
  settlement_accounts: string[];
  require_distinct_approver: boolean;
  version: number;
}

export interface LedgerLine {
  account: string;
  debit_minor: number;
  credit_minor: number;
}

export type LedgerEntryStatus = 'posted' | 'reversed';

/**
 * The applied operation that wrote a record in the books it was exported from
 * (docs/guide/ledger-exchange.md "Who wrote it"): an import of a journal keeps
 * it, and the export writes it again where no applied operation of this store
 * names the record. Absent on every other record.
 */
export interface Provenance {
  operation: string;
  /** Its approvers, in the order they approved. */
  approved_by: string[];
}

export interface LedgerEntry {
  id: string;
  entry_date: IsoDate;
  description: string;
  reference: string;
  counterparty_id: string;
  currency: string;
  lines: LedgerLine[];
  status: LedgerEntryStatus;
  reversal_of: string | null;
  reversed_by: string | null;
  version: number;
  provenance?: Provenance | null;
}

export interface BankAccount {
  id: string;
  name: string;
  currency: string;
  ledger_account: string;
  reconciled_through: { date: IsoDate; balance_minor: number } | null;
  opening_balance_minor: number;
  /** The account's IBAN (no spaces) and/or other number, when the books give them (docs/guide/statement-import.md). */
  iban?: string | null;
  account_number?: string | null;
  version: number;
}

export const LEDGER_ACCOUNT_TYPES = ['asset', 'liability', 'equity', 'income', 'expense'] as const;
export type LedgerAccountType = (typeof LEDGER_ACCOUNT_TYPES)[number];

/** One account of an organisation's chart (docs/guide/importing-books.md "Chart of accounts"); its code is unique in the org. */
export interface LedgerAccount {
  code: string;
  name: string;
  type: LedgerAccountType;
  /** false: kept for the entries that use it; new entries may not post to it. */
  active: boolean;
}

/** An account of the chart as stored: its `_id` (`ORG:CODE`) and version, for a plan's preconditions. */
export type VersionedLedgerAccount = LedgerAccount & { id: string; version: number };

export type BankTransactionStatus = 'unreconciled' | 'reconciled';

export interface BankTransaction {
  id: string;
  bank_account_id: string;
  booking_date: IsoDate;
  /** Signed: positive is money in. */
  amount_minor: number;
  currency: string;
  /** null: no known counterparty (a statement import that matched none); the FIFO repair ignores such a transaction. */
  counterparty_id: string | null;
  counterparty_name: string;
  remittance_info: string;
  /** The bank's own reference (a statement import's duplicate rule 1); absent on hand-written books. */
  bank_reference?: string | null;
  status: BankTransactionStatus;
  reconciliation_id: string | null;
  version: number;
  provenance?: Provenance | null;
}

export interface BankLink {
  id: string;
  bank_transaction_id: string;
  ledger_entry_id: string;
  /** Always positive. */
  amount_minor: number;
  /** ISO 8601 UTC timestamp. */
  created_at: string;
  created_by: string;
  version: number;
  provenance?: Provenance | null;
}

export type InboxDocumentStatus = 'open' | 'booked' | 'archived';

export interface InboxDocument {
  id: string;
  received_at: string;
  source: string;
  status: InboxDocumentStatus;
  file: { sha256: string; name: string; size: number; mime: string };
  extracted: {
    vendor_name?: string;
    vendor_tax_id?: string;
    invoice_number?: string;
    invoice_date?: IsoDate;
    total_minor?: number;
    currency?: string;
  };
  /** The ledger entry that booked it (an applied journal entry, docs/reference/http-api.md §9.1); absent otherwise. */
  booked_entry_id?: string | null;
}

/** An inbox document as stored: with its version (what the apply is guarded by) and, once archived, why. */
export type VersionedInboxDocument = InboxDocument & { version: number; archived_reason?: string | null };

/**
 * An entry's open amount: Σ(debit − credit) over its lines on the org's
 * settlement accounts. Positive = money expected in (receivable), negative =
 * money expected out (payable).
 */
export function openAmountMinor(entry: Pick<LedgerEntry, 'lines'>, settlementAccounts: readonly string[]): number {
  let open = 0;
  for (const line of entry.lines) {
    if (settlementAccounts.includes(line.account)) open += line.debit_minor - line.credit_minor;
  }
  return open;
}

/**
 * Whether an entry reverses another (`reversal_of`): it settles the entry it
 * reverses, whose links the reversal removed, so nothing of it is left to
 * match with the bank (the FIFO repair queues neither).
 */
export const isReversalEntry = (entry: Partial<Pick<LedgerEntry, 'reversal_of'>>): boolean =>
  Boolean(entry.reversal_of);

/** Whether bank money may settle an entry at all: posted, and reversing no other entry. */
export const isSettleable = (entry: Pick<LedgerEntry, 'status'> & Partial<Pick<LedgerEntry, 'reversal_of'>>): boolean =>
  entry.status === 'posted' && !isReversalEntry(entry);

/** What a transaction's links leave unmatched: |amount| − Σ link amounts (0 when fully matched; negative when over-linked); exact. */
export function remainderMinor(
  transaction: Pick<BankTransaction, 'amount_minor'>,
  links: ReadonlyArray<Pick<BankLink, 'amount_minor'>>,
): number {
  return Number(abs(BigInt(transaction.amount_minor)) - sumMinor(links.map((l) => l.amount_minor)));
}

/** The exact sum of integer minor amounts. */
export function sumMinor(amounts: readonly number[]): bigint {
  let sum = 0n;
  for (const a of amounts) sum += BigInt(a);
  return sum;
}

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

/** A version reference the apply step re-checks before writing anything. */
export interface Precondition {
  collection:
    | 'orgs'
    | 'ledger_entries'
    | 'bank_accounts'
    | 'bank_transactions'
    | 'bank_links'
    | 'inbox_documents'
    | 'ledger_accounts';
  id: string;
  version: number;
}

/** Code-unit order, the same on every machine and locale (never localeCompare). */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
