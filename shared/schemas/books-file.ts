// The books import file (docs/guide/importing-books.md, docs/reference/http-api.md §2).
import {
  LEDGER_ACCOUNT_CODE_MAX_LENGTH,
  LEDGER_ACCOUNT_CODE_PATTERN,
  LEDGER_ACCOUNT_NAME_MAX_LENGTH,
  LEDGER_ACCOUNT_TYPES,
  LEDGER_ACCOUNTS_MAX,
} from '../domain/chart-of-accounts.js';
import {
  currency,
  id,
  isoDate,
  minor,
  nonNegativeMinor,
  nullable,
  positiveMinor,
  SAFE_TEXT_PATTERN,
  text,
  timestamp,
  version,
} from './common.js';

const orgId = { type: 'string', minLength: 1, maxLength: 128 } as const;

const record = (properties: Record<string, object>, required: string[]) => ({
  type: 'object',
  additionalProperties: false,
  // org_id "need not be repeated", but may be; the integrity check requires it to be the file's org.
  properties: { ...properties, org_id: orgId },
  required,
});

const org = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: orgId,
    name: text(200),
    base_currency: currency,
    lock_date: nullable(isoDate),
    settlement_accounts: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 64, pattern: SAFE_TEXT_PATTERN },
      maxItems: 100,
      uniqueItems: true,
    },
    require_distinct_approver: { type: 'boolean' },
    version,
  },
  required: ['id', 'name', 'base_currency', 'lock_date', 'settlement_accounts', 'require_distinct_approver'],
};

const line = {
  type: 'object',
  additionalProperties: false,
  properties: {
    account: { type: 'string', minLength: 1, maxLength: 64, pattern: SAFE_TEXT_PATTERN },
    debit_minor: nonNegativeMinor,
    credit_minor: nonNegativeMinor,
  },
  required: ['account', 'debit_minor', 'credit_minor'],
};

// docs/guide/ledger-exchange.md "Who wrote it": kept from an imported journal.
const provenance = nullable({
  type: 'object',
  additionalProperties: false,
  properties: {
    operation: id,
    approved_by: { type: 'array', maxItems: 100, items: { ...text(200), minLength: 1 } },
  },
  required: ['operation', 'approved_by'],
});

const ledgerEntry = record(
  {
    id,
    entry_date: isoDate,
    description: text(1000),
    reference: text(200),
    counterparty_id: id,
    currency,
    lines: { type: 'array', minItems: 1, maxItems: 500, items: line },
    status: { enum: ['posted', 'reversed'] },
    reversal_of: nullable(id),
    reversed_by: nullable(id),
    version,
    provenance,
  },
  ['id', 'entry_date', 'description', 'reference', 'counterparty_id', 'currency', 'lines', 'status'],
);

const bankAccount = record(
  {
    id,
    name: text(200),
    currency,
    ledger_account: { type: 'string', minLength: 1, maxLength: 64, pattern: SAFE_TEXT_PATTERN },
    reconciled_through: nullable({
      type: 'object',
      additionalProperties: false,
      properties: { date: isoDate, balance_minor: minor },
      required: ['date', 'balance_minor'],
    }),
    opening_balance_minor: minor,
    version,
    // docs/guide/statement-import.md: a statement file's account is compared with these.
    iban: nullable({ type: 'string', minLength: 1, maxLength: 34, pattern: '^[A-Za-z0-9]+$' }),
    account_number: nullable({ type: 'string', minLength: 1, maxLength: 34 }),
  },
  ['id', 'name', 'currency', 'ledger_account', 'reconciled_through', 'opening_balance_minor'],
);

const bankTransaction = record(
  {
    id,
    bank_account_id: id,
    booking_date: isoDate,
    amount_minor: minor,
    currency,
    counterparty_id: nullable(id),
    counterparty_name: text(200),
    remittance_info: text(1000),
    status: { enum: ['unreconciled', 'reconciled'] },
    reconciliation_id: nullable(id),
    version,
    // docs/guide/statement-import.md: duplicate rule 1 compares a statement entry's bank reference with this.
    bank_reference: nullable(text(200)),
    provenance,
  },
  [
    'id',
    'bank_account_id',
    'booking_date',
    'amount_minor',
    'currency',
    'counterparty_id',
    'counterparty_name',
    'remittance_info',
    'status',
  ],
);

const bankLink = record(
  {
    id,
    bank_transaction_id: id,
    ledger_entry_id: id,
    amount_minor: positiveMinor,
    created_at: timestamp,
    created_by: text(200),
    version,
    provenance,
  },
  ['id', 'bank_transaction_id', 'ledger_entry_id', 'amount_minor', 'created_at', 'created_by'],
);

const inboxDocument = record(
  {
    id,
    received_at: timestamp,
    source: text(200),
    status: { enum: ['open', 'booked', 'archived'] },
    file: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sha256: { type: 'string', pattern: '^[A-Fa-f0-9]{64}$' },
        name: text(500),
        size: nonNegativeMinor,
        mime: text(200),
      },
      required: ['sha256', 'name', 'size', 'mime'],
    },
    extracted: {
      type: 'object',
      additionalProperties: false,
      // Extraction may fail field by field: a field may be absent or null.
      properties: {
        vendor_name: nullable(text(500)),
        vendor_tax_id: nullable(text(100)),
        invoice_number: nullable(text(200)),
        invoice_date: nullable(isoDate),
        total_minor: nullable(minor),
        currency: nullable(currency),
      },
    },
  },
  ['id', 'received_at', 'source', 'status', 'file', 'extracted'],
);

/** One account of the chart (docs/guide/importing-books.md "Chart of accounts"); codes are unique (books-integrity.ts). */
export const ledgerAccountSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    code: {
      type: 'string',
      minLength: 1,
      maxLength: LEDGER_ACCOUNT_CODE_MAX_LENGTH,
      pattern: LEDGER_ACCOUNT_CODE_PATTERN,
    },
    name: { type: 'string', minLength: 1, maxLength: LEDGER_ACCOUNT_NAME_MAX_LENGTH, pattern: SAFE_TEXT_PATTERN },
    type: { enum: LEDGER_ACCOUNT_TYPES },
    active: { type: 'boolean' },
  },
  required: ['code', 'name', 'type', 'active'],
} as const;

/** The most records of one kind a file may hold (every array is bounded, docs/reference/http-api.md §1). */
export const BOOKS_FILE_MAX_RECORDS = 1_000_000;
const list = (items: object) => ({ type: 'array', maxItems: BOOKS_FILE_MAX_RECORDS, items });

export const booksFileSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    org,
    accounts: { type: 'array', maxItems: LEDGER_ACCOUNTS_MAX, items: ledgerAccountSchema },
    ledger_entries: list(ledgerEntry),
    bank_accounts: list(bankAccount),
    bank_transactions: list(bankTransaction),
    bank_links: list(bankLink),
    inbox_documents: list(inboxDocument),
  },
  required: ['org', 'ledger_entries', 'bank_accounts', 'bank_transactions', 'bank_links', 'inbox_documents'],
} as const;
