// The book reads (docs/reference/book-reads.md): query,
// path and `data` schemas. Query strings arrive as strings; the routes
// convert `limit` (api/query-string.ts) before validating, so Ajv never coerces.
import { currency, id, isoDate, minor, nullable, text, timestamp, version } from './common.js';
import { CURSOR_MAX_LENGTH } from './inbox-duplicates.js';

export const BOOKS_DEFAULT_LIMIT = 50;
export const BOOKS_MAX_LIMIT = 500;
export const BOOKS_NUMERIC_PARAMS = ['limit'] as const;

const limit = {
  type: 'integer',
  minimum: 1,
  maximum: BOOKS_MAX_LIMIT,
  description: `Items per page (default ${BOOKS_DEFAULT_LIMIT}).`,
} as const;
const cursor = {
  type: 'string',
  minLength: 1,
  maxLength: CURSOR_MAX_LENGTH,
  description: 'The next_cursor of the previous page, unchanged, with the same filters.',
} as const;
const nextCursor = {
  anyOf: [{ type: 'string', maxLength: CURSOR_MAX_LENGTH }, { type: 'null' }],
  description: 'Pass as `cursor` for the next page; null on the last page.',
} as const;
const query = (title: string, properties: Record<string, object>) =>
  ({ title, type: 'object', additionalProperties: false, properties: { ...properties, limit, cursor } }) as const;
const page = (title: string, item: object) =>
  ({
    title,
    type: 'object',
    additionalProperties: false,
    required: ['items', 'next_cursor'],
    properties: { items: { type: 'array', maxItems: BOOKS_MAX_LIMIT, items: item }, next_cursor: nextCursor },
  }) as const;
const params = (name: string) =>
  ({ type: 'object', additionalProperties: false, required: [name], properties: { [name]: id } }) as const;

export const transactionsQuerySchema = query('Bank transactions query', {
  bank_account_id: id,
  status: { enum: ['unreconciled', 'reconciled'] },
  from: { ...isoDate, description: 'Booking date on or after (inclusive).' },
  to: { ...isoDate, description: 'Booking date on or before (inclusive).' },
  counterparty_id: id,
  link_state: {
    enum: ['unlinked', 'partial', 'full', 'over'],
    description:
      'By Σ links against |amount|. Not indexed: a page scans at most a bounded number of transactions and may come back short, with a next_cursor (docs/reference/book-reads.md).',
  },
});

export const entriesQuerySchema = query('Ledger entries query', {
  counterparty_id: id,
  status: { enum: ['posted', 'reversed'] },
  open: {
    enum: ['true', 'false'],
    description:
      '`true`: only open entries (posted, reversing no other entry, open amount ≠ Σ their links); `false`: only the others. Not indexed, bounded as link_state.',
  },
  from: { ...isoDate, description: 'Entry date on or after (inclusive).' },
  to: { ...isoDate, description: 'Entry date on or before (inclusive).' },
  reference: { ...text(200), minLength: 1, description: 'Exactly this reference.' },
});

export const documentsQuerySchema = query('Inbox documents query', {
  status: { enum: ['open', 'booked', 'archived'] },
});

/** The counterparty list's page is smaller than the other lists' (each row is a grouping, docs/reference/book-reads.md). */
export const COUNTERPARTIES_MAX_LIMIT = 200;

export const counterpartiesQuerySchema = {
  title: 'Counterparties query',
  type: 'object',
  additionalProperties: false,
  required: ['bank_account_id'],
  properties: { bank_account_id: id, limit: { ...limit, maximum: COUNTERPARTIES_MAX_LIMIT }, cursor },
} as const;
export interface CounterpartiesQuery {
  bank_account_id: string;
  limit?: number;
  cursor?: string;
}

/** The account list takes no parameters (and refuses any). */
export const noQuerySchema = {
  title: 'No query parameters',
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const;

export const bankAccountParamsSchema = params('bank_account_id');
export const bankTransactionParamsSchema = params('bank_transaction_id');
export const entryParamsSchema = params('entry_id');
export const documentParamsSchema = params('document_id');

export interface TransactionsQuery {
  bank_account_id?: string;
  status?: 'unreconciled' | 'reconciled';
  from?: string;
  to?: string;
  counterparty_id?: string;
  link_state?: 'unlinked' | 'partial' | 'full' | 'over';
  limit?: number;
  cursor?: string;
}
export interface EntriesQuery {
  counterparty_id?: string;
  status?: 'posted' | 'reversed';
  open?: 'true' | 'false';
  from?: string;
  to?: string;
  reference?: string;
  limit?: number;
  cursor?: string;
}
export interface DocumentsQuery {
  status?: 'open' | 'booked' | 'archived';
  limit?: number;
  cursor?: string;
}

const link = {
  type: 'object',
  additionalProperties: false,
  required: ['link_id', 'ledger_entry_id', 'amount_minor'],
  properties: { link_id: id, ledger_entry_id: id, amount_minor: minor },
} as const;
const entryLink = {
  ...link,
  required: [...link.required, 'bank_transaction_id'],
  properties: { ...link.properties, bank_transaction_id: id },
} as const;

export const bankAccountSchema = {
  title: 'Bank account',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'currency',
    'ledger_account',
    'opening_balance_minor',
    'reconciled_through',
    'book_balance_minor',
    'unreconciled',
  ],
  properties: {
    id,
    name: { type: 'string' },
    currency,
    ledger_account: { type: 'string' },
    opening_balance_minor: minor,
    reconciled_through: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['date', 'balance_minor'],
      properties: { date: isoDate, balance_minor: minor },
    }),
    iban: { type: 'string', maxLength: 34 },
    account_number: { type: 'string', maxLength: 34 },
    version,
    book_balance_minor: { ...minor, description: 'Opening balance + Σ every transaction of the account.' },
    unreconciled: {
      type: 'object',
      additionalProperties: false,
      required: ['count', 'sum_minor'],
      properties: { count: { type: 'integer', minimum: 0 }, sum_minor: minor },
    },
  },
} as const;

export const bankTransactionSchema = {
  title: 'Bank transaction',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'bank_account_id',
    'booking_date',
    'amount_minor',
    'currency',
    'counterparty_id',
    'counterparty_name',
    'remittance_info',
    'status',
    'reconciliation_id',
    'links',
    'linked_minor',
    'remainder_minor',
    'link_state',
  ],
  properties: {
    id,
    bank_account_id: id,
    booking_date: isoDate,
    amount_minor: minor,
    currency,
    counterparty_id: nullable({ ...id, description: 'null: no known counterparty (a statement import matched none).' }),
    counterparty_name: { type: 'string' },
    bank_reference: nullable({
      type: 'string',
      description: "The bank's reference, when the transaction came from a statement import or the books give one.",
    }),
    value_date: nullable(isoDate),
    counterparty_iban: nullable({ type: 'string' }),
    remittance_info: { type: 'string' },
    status: { enum: ['unreconciled', 'reconciled'] },
    reconciliation_id: nullable(id),
    version,
    links: { type: 'array', items: link, description: 'By link id.' },
    linked_minor: minor,
    remainder_minor: { ...minor, description: '|amount| − Σ links, as the reconciliation computes it.' },
    link_state: { enum: ['unlinked', 'partial', 'full', 'over'] },
  },
} as const;

export const ledgerEntrySchema = {
  title: 'Ledger entry',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'entry_date',
    'description',
    'reference',
    'counterparty_id',
    'currency',
    'lines',
    'status',
    'reversal_of',
    'reversed_by',
    'links',
    'linked_minor',
    'open_amount_minor',
    'open',
  ],
  properties: {
    id,
    entry_date: isoDate,
    description: { type: 'string' },
    reference: { type: 'string' },
    counterparty_id: id,
    currency,
    lines: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['account', 'debit_minor', 'credit_minor'],
        properties: { account: { type: 'string' }, debit_minor: minor, credit_minor: minor },
      },
    },
    status: { enum: ['posted', 'reversed'] },
    reversal_of: nullable(id),
    reversed_by: nullable(id),
    version,
    links: { type: 'array', items: entryLink, description: 'By link id.' },
    linked_minor: minor,
    open_amount_minor: {
      ...minor,
      description:
        "Σ(debit − credit) on the organisation's settlement accounts (the FIFO repair's rule): > 0 receivable, < 0 payable.",
    },
    open: {
      type: 'boolean',
      description:
        'Posted, reversing no other entry, and |open_amount_minor| ≠ linked_minor: left to match with the bank. A reversed entry and its reversal are not open.',
    },
  },
} as const;

export const inboxDocumentSchema = {
  title: 'Inbox document',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'received_at', 'source', 'status', 'file', 'extracted'],
  properties: {
    id,
    received_at: timestamp,
    source: { type: 'string' },
    status: { enum: ['open', 'booked', 'archived'] },
    file: {
      type: 'object',
      additionalProperties: false,
      required: ['sha256', 'name', 'size', 'mime'],
      properties: {
        sha256: { type: 'string' },
        name: { type: 'string' },
        size: { type: 'integer', minimum: 0 },
        mime: { type: 'string' },
      },
    },
    extracted: {
      type: 'object',
      additionalProperties: false,
      properties: {
        vendor_name: nullable({ type: 'string' }),
        vendor_tax_id: nullable({ type: 'string' }),
        invoice_number: nullable({ type: 'string' }),
        invoice_date: nullable(isoDate),
        total_minor: nullable(minor),
        currency: nullable(currency),
      },
    },
    version,
    archived_reason: {
      ...nullable({ type: 'string' }),
      description:
        'Why an archived document was archived, e.g. `duplicate_of:doc_1` (a duplicate resolution); absent otherwise.',
    },
    booked_entry_id: {
      ...nullable({ type: 'string' }),
      description: 'The ledger entry that booked it (an applied journal entry); absent otherwise.',
    },
  },
} as const;

export const counterpartySchema = {
  title: 'Counterparty',
  type: 'object',
  additionalProperties: false,
  required: [
    'counterparty_id',
    'name',
    'open_receivable_minor',
    'open_payable_minor',
    'unlinked_bank_minor',
    'currency',
  ],
  properties: {
    counterparty_id: id,
    name: nullable({
      type: 'string',
      description:
        'The latest bank name on the account (by booking date, id); for a counterparty with no transaction on the account, the latest on any account of the organisation; null when no transaction names it.',
    }),
    open_receivable_minor: minor,
    open_payable_minor: minor,
    unlinked_bank_minor: minor,
    currency: {
      ...currency,
      description:
        "The account's currency: every amount of the row is in it (entries in other currencies are left out).",
    },
  },
} as const;

export const bankAccountListSchema = {
  title: 'Bank accounts',
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: { items: { type: 'array', items: bankAccountSchema } },
} as const;
export const transactionPageSchema = page('Bank transactions page', bankTransactionSchema);
export const entryPageSchema = page('Ledger entries page', ledgerEntrySchema);
export const documentPageSchema = page('Inbox documents page', inboxDocumentSchema);
export const counterpartyListSchema = {
  title: 'Counterparties',
  type: 'object',
  additionalProperties: false,
  required: ['items', 'next_cursor'],
  properties: {
    items: { type: 'array', maxItems: COUNTERPARTIES_MAX_LIMIT, items: counterpartySchema },
    next_cursor: nextCursor,
  },
} as const;

/** The chart of accounts (docs/reference/book-reads.md): no filter, by code. */
export const ledgerAccountsQuerySchema = query('Ledger accounts query', {});
export interface LedgerAccountsQuery {
  limit?: number;
  cursor?: string;
}
export const ledgerAccountReadSchema = {
  title: 'Ledger account',
  type: 'object',
  additionalProperties: false,
  required: ['code', 'name', 'type', 'active'],
  properties: {
    code: { type: 'string' },
    name: { type: 'string' },
    type: { enum: ['asset', 'liability', 'equity', 'income', 'expense'] },
    active: {
      type: 'boolean',
      description: 'false: kept for the entries that use it; new entries may not post to it.',
    },
  },
} as const;
export const ledgerAccountPageSchema = page('Ledger accounts page', ledgerAccountReadSchema);

/** The trial balance's day (docs/reference/book-reads.md "Trial balance"): today (UTC) when absent. */
export const trialBalanceQuerySchema = {
  title: 'Trial balance query',
  type: 'object',
  additionalProperties: false,
  properties: {
    as_of: { ...isoDate, description: 'Postings dated on or before this day (inclusive); today (UTC) when absent.' },
  },
} as const;
export interface TrialBalanceQuery {
  as_of?: string;
}
/** A total of many amounts: a number when it is a safe integer, else its exact decimal string (docs/reference/http-api.md §7). */
const exactMinor = { anyOf: [minor, { type: 'string', pattern: '^-?[0-9]+$', maxLength: 40 }] } as const;
export const trialBalanceSchema = {
  title: 'Trial balance',
  type: 'object',
  additionalProperties: false,
  required: ['as_of', 'items'],
  properties: {
    as_of: isoDate,
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['account', 'name', 'type', 'currency', 'debit_minor', 'credit_minor', 'balance_minor'],
        properties: {
          account: { type: 'string' },
          name: nullable({ type: 'string' }),
          type: nullable({ enum: ['asset', 'liability', 'equity', 'income', 'expense'] }),
          currency,
          debit_minor: exactMinor,
          credit_minor: exactMinor,
          balance_minor: { ...exactMinor, description: 'debit_minor − credit_minor.' },
        },
      },
    },
  },
} as const;

export const EXPORT_FORMATS = ['hledger', 'beancount'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** The books export (docs/reference/book-reads.md "Export"). */
export const booksExportQuerySchema = {
  title: 'Books export query',
  type: 'object',
  additionalProperties: false,
  required: ['format'],
  properties: {
    format: { enum: EXPORT_FORMATS, description: 'hledger: an hledger journal; beancount: a beancount file.' },
    through: { ...isoDate, description: 'Records dated on or before this day (inclusive); every record when absent.' },
  },
} as const;
export interface BooksExportQuery {
  format: ExportFormat;
  through?: string;
}
