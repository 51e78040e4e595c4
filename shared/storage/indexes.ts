// The one list of index declarations, for every backend (docs/indexes.md).
//
// `indexes` are ordinary MongoDB indexes, created with createIndex on every
// backend; each starts with org_id because no query ever leaves its
// organisation. `equality` names the fields the code reads by top-level
// equality. On MongoDB the ordinary indexes serve those reads. On FerretDB
// 1.24 on PostgreSQL they cannot: FerretDB pushes an equality down as
// `_jsonb -> 'field' @> 'value'`, which its own btree indexes never serve, so
// each equality field (and `_id`, always) also gets a PostgreSQL GIN
// expression index: which indexes the server needs beyond these is the store
// port's DriverStrategy's answer (ensureServerIndexes; FerretDB's in
// shared/storage/ferretdb/driver-strategy.ts).
import type { Db, IndexSpecification } from 'mongodb';
import { upgradeOldLocks } from './plan-locks.js';
import type { ServerIndexReport, StoreLogger } from './port.js';
import { storeAdapter } from './store-adapter.js';

/** A keyset page order: equality fields, then the sort key. */
type PageOrder = readonly string[];

export interface CollectionIndexes {
  /** Ordinary indexes (createIndex); on FerretDB they only keep MongoDB's declarations true. */
  indexes: IndexSpecification[];
  /**
   * Ordinary indexes that serve only keyset pages of `pages` (nothing reads
   * the collection by their fields otherwise): made where the store's
   * DriverStrategy says (`makesPageOnlyIndexes`: MongoDB, not FerretDB).
   */
  pageOnly?: IndexSpecification[];
  /** Unique indexes (createIndex with `unique`): an insert they refuse is how a race is settled (docs/operating/reliability.md). */
  unique?: IndexSpecification[];
  /** Fields read by top-level equality (`_id` is implied): one GIN expression index each on FerretDB/PostgreSQL. */
  equality: string[];
  /**
   * Keyset page orders read in SQL on FerretDB/PostgreSQL (docs/indexes.md
   * "Pages from PostgreSQL's own index"): equality fields, then the sort key;
   * one btree expression index each, with `_id` as its last column.
   */
  pages?: readonly PageOrder[];
}

/** Every collection the project writes, by name; a collection missing here gets no indexes on FerretDB. */
export const INDEXES: Readonly<Record<string, CollectionIndexes>> = {
  orgs: { indexes: [], equality: [] },
  ledger_entries: {
    // (org_id, entry_date): the book reads' entry pages (docs/reference/book-reads.md); status and reference are their equality filters.
    indexes: [
      { org_id: 1, counterparty_id: 1, entry_date: 1 },
      { org_id: 1, entry_date: 1 },
    ],
    equality: ['org_id', 'counterparty_id', 'status', 'reference'],
    // The entry pages' filters (docs/reference/book-reads.md): none, a counterparty, a status (reversed ones are rare), a reference.
    pages: [
      ['org_id', 'entry_date'],
      ['org_id', 'counterparty_id', 'entry_date'],
      ['org_id', 'status', 'entry_date'],
      ['org_id', 'reference', 'entry_date'],
    ],
  },
  bank_accounts: { indexes: [], equality: ['org_id'] },
  // The chart's page (docs/reference/book-reads.md): an org's accounts by code.
  ledger_accounts: { indexes: [{ org_id: 1, code: 1 }], equality: ['org_id'] },
  bank_transactions: {
    indexes: [
      { org_id: 1, bank_account_id: 1, counterparty_id: 1, booking_date: 1 },
      { org_id: 1, bank_account_id: 1, status: 1, booking_date: 1 },
      // The book reads' pages without an account (docs/reference/book-reads.md).
      { org_id: 1, booking_date: 1 },
      // A statement import's apply: the account's transactions carrying one of its new references (docs/guide/statement-import.md "Apply").
      { org_id: 1, bank_account_id: 1, bank_reference: 1 },
    ],
    equality: ['org_id', 'bank_account_id', 'counterparty_id', 'status'],
    // The transaction pages' filters: none, an account, an account's unreconciled (or reconciled) ones, a counterparty, a status.
    pages: [
      ['org_id', 'booking_date'],
      ['org_id', 'bank_account_id', 'booking_date'],
      ['org_id', 'bank_account_id', 'status', 'booking_date'],
      ['org_id', 'counterparty_id', 'booking_date'],
      ['org_id', 'status', 'booking_date'],
      // Not a page: the import apply's lookup by reference in SQL (shared/storage/ferretdb/postgres-pages.ts accountReferences).
      ['org_id', 'bank_account_id', 'bank_reference'],
    ],
  },
  bank_links: {
    indexes: [
      { org_id: 1, bank_transaction_id: 1 },
      { org_id: 1, ledger_entry_id: 1 },
    ],
    equality: ['org_id', 'bank_transaction_id', 'ledger_entry_id'],
  },
  inbox_documents: {
    indexes: [
      { org_id: 1, status: 1 },
      { org_id: 1, received_at: -1 },
      // A match suggestion's open documents of one total (docs/reference/http-api.md §8.2): FerretDB's btree of the
      // nested key is the expression the store port's `where` names (shared/storage/ferretdb/postgres-pages.ts).
      { org_id: 1, status: 1, 'extracted.total_minor': 1 },
    ],
    equality: ['org_id', 'status'],
    // The document pages (newest first: the btree is read backwards).
    pages: [
      ['org_id', 'received_at'],
      ['org_id', 'status', 'received_at'],
    ],
  },
  // status: the expiry and recovery sweeps (worker/maintenance.ts) read each status across orgs.
  staged_operations: { indexes: [{ org_id: 1, created_at: -1 }, { status: 1 }], equality: ['org_id', 'status'] },
  // An operation's plan, preconditions and context (shared/storage/staged-operation-codec.ts): written once, read by `_id` only.
  staged_operation_bodies: { indexes: [], equality: [] },
  // `key` unique: one holder per subject key; `_id` names the holder (shared/storage/plan-locks.ts).
  scope_locks: {
    indexes: [{ org_id: 1, staged_operation_id: 1 }],
    unique: [{ key: 1 }],
    equality: ['org_id', 'staged_operation_id', 'key'],
  },
  // Version reservations on book records (shared/storage/version-reservations.ts): written and read by `_id`; by `record` when an import inserts.
  record_claims: { indexes: [{ org_id: 1, record: 1 }], equality: ['org_id', 'record'] },
  // The apply lease's steps (shared/storage/staged-operation-status.ts): inserted by `_id`, read by operation.
  apply_leases: { indexes: [{ org_id: 1, staged_operation_id: 1 }], equality: ['org_id', 'staged_operation_id'] },
  // An apply journal's parts (shared/storage/apply-journal-parts.ts): written once before the apply starts, read by `_id` only.
  apply_journal_parts: { indexes: [], equality: [] },
  api_tokens: { indexes: [], equality: [] },
  // feed_block: a page of the event feed reads its blocks by equality (shared/storage/events.ts, docs/reference/webhooks.md).
  audit_events: {
    indexes: [
      { org_id: 1, at: -1 },
      { org_id: 1, 'event.sequence': 1 },
      { org_id: 1, feed_block: 1 },
    ],
    equality: ['org_id', 'feed_block'],
  },
  // The event feed and webhooks (docs/reference/webhooks.md).
  event_sequences: { indexes: [{ org_id: 1, sequence: -1 }], equality: ['org_id'] },
  webhook_endpoints: { indexes: [{ org_id: 1, created_at: -1 }], equality: ['org_id'] },
  webhook_deliveries: { indexes: [{ org_id: 1, endpoint_id: 1, at: -1 }], equality: ['org_id', 'endpoint_id'] },
  idempotency_keys: { indexes: [], equality: [] },
  job_results: { indexes: [], equality: [] },
  // The materialized duplicate overview (docs/design/duplicate-overview.md): read by `_id` only; org_id for clean-up.
  inbox_versions: { indexes: [], equality: [] },
  duplicate_overviews: { indexes: [{ org_id: 1 }], equality: ['org_id'] },
  duplicate_overview_chunks: { indexes: [{ org_id: 1, overview_id: 1 }], equality: ['org_id', 'overview_id'] },
  // Dismissed duplicate sets (docs/design/duplicate-overview.md "Dismissals"): inserted by `_id` (one per org and set), read per org when grouping.
  duplicate_dismissals: { indexes: [{ org_id: 1 }], equality: ['org_id'] },
  // Declined match suggestions (docs/reference/http-api.md §8.2): inserted by `_id`, read and counted per transaction.
  match_declines: { indexes: [{ org_id: 1, bank_transaction_id: 1 }], equality: ['org_id', 'bank_transaction_id'] },
  // Open amounts of entries (docs/design/entry-open-amounts.md): a suggestion reads each candidate group of one currency
  // and direction nearest a date (docs/reference/http-api.md §8.2); a refresh reads rows by `_id`.
  entry_open_amounts: {
    indexes: [],
    pageOnly: [
      { org_id: 1, currency: 1, direction: 1, entry_date: 1 },
      { org_id: 1, currency: 1, direction: 1, open_minor: 1, entry_date: 1 },
      { org_id: 1, currency: 1, direction: 1, counterparty_id: 1, entry_date: 1 },
    ],
    equality: ['org_id'],
    pages: [
      ['org_id', 'currency', 'direction', 'entry_date'],
      ['org_id', 'currency', 'direction', 'open_minor', 'entry_date'],
      ['org_id', 'currency', 'direction', 'counterparty_id', 'entry_date'],
    ],
  },
  // Which organisations had their open amounts filled whole (docs/design/entry-open-amounts.md "Filling"): read whole at worker start.
  entry_open_fills: { indexes: [], equality: [] },
  // Saved CSV mappings (docs/guide/statement-import.md "Saved CSV mapping"): read and written by `_id` (the bank account's id) only.
  bank_csv_mappings: { indexes: [], equality: [] },
  // Statement files on their way to the worker (shared/storage/statement-uploads.ts): by `_id`, and by `upload` when a later upload extends them.
  statement_uploads: { indexes: [{ upload: 1 }], equality: ['upload'] },
  // Books export parts on their way to the API (shared/storage/book-exports.ts): read by `_id` only.
  book_exports: { indexes: [], equality: [] },
  // The kept figures of the book reads (shared/storage/book-figures.ts): by `_id`; an account's counterparty list by
  // (listed_on, counterparty_id); stale masters by `stale`; a counterparty's rows by counterparty_id. The btrees serve
  // the SQL reads on FerretDB (an equality on org_id alone would read every figure of the organisation).
  book_figures: {
    indexes: [
      { org_id: 1, listed_on: 1, counterparty_id: 1 },
      { org_id: 1, stale: 1 },
      { org_id: 1, counterparty_id: 1 },
    ],
    equality: ['org_id', 'listed_on', 'stale', 'kind', 'counterparty_id'],
    pages: [['org_id', 'listed_on', 'counterparty_id']],
  },
  // Closed periods (docs/design/staged-lifecycle.md "Closed periods"): inserted by `_id` (one per org and through), listed by through.
  closed_periods: { indexes: [{ org_id: 1, through: 1 }], equality: ['org_id'] },
  // Approval policies (shared/storage/approval-policies.ts): an org's versions, the highest in force.
  approval_policies: { indexes: [{ org_id: 1, policy_version: -1 }], equality: ['org_id'] },
  // Each actor's approval (shared/storage/approvals.ts): inserted by `_id`, read by operation.
  approvals: { indexes: [{ org_id: 1, staged_operation_id: 1 }], equality: ['org_id', 'staged_operation_id'] },
  // An actor's unattended total of a day (shared/storage/unattended-reservations.ts): its chain's latest step by key.
  unattended_reservations: { indexes: [{ org_id: 1, key: 1, seq: -1 }], equality: ['org_id', 'key'] },
};

/** The fields that get a GIN expression index on FerretDB/PostgreSQL: `_id` first, then the equality fields. */
export function ginFields(declaration: CollectionIndexes): string[] {
  return ['_id', ...declaration.equality.filter((f) => f !== '_id')];
}

export interface EnsureIndexesOptions {
  /**
   * The PostgreSQL database behind FerretDB (FERRETDB_POSTGRES_URL). Without
   * it, on FerretDB, only the ordinary indexes exist and a warning is logged.
   */
  postgresUrl?: string | undefined;
  logger?: StoreLogger | undefined;
}

/**
 * Create every collection and its indexes, then those the server needs
 * beyond them (on FerretDB with a PostgreSQL URL, the GIN expression
 * indexes). Idempotent, safe to run from several processes at once; API and
 * worker run it before they serve.
 */
export async function ensureIndexes(db: Db, options: EnsureIndexesOptions = {}): Promise<ServerIndexReport | null> {
  await ensureCollections(db);
  await upgradeOldLocks(db);
  const { driver } = await storeAdapter(db);
  await Promise.all(
    Object.entries(INDEXES).flatMap(([name, declaration]) => [
      ...[...declaration.indexes, ...(driver.makesPageOnlyIndexes ? (declaration.pageOnly ?? []) : [])].map((spec) =>
        db.collection(name).createIndex(spec),
      ),
      ...(declaration.unique ?? []).map((spec) => db.collection(name).createIndex(spec, { unique: true })),
    ]),
  );
  return driver.ensureServerIndexes(
    db,
    Object.entries(INDEXES).map(([collection, declaration]) => ({
      collection,
      fields: ginFields(declaration),
      pages: declaration.pages ?? [],
    })),
    options,
  );
}

/** FerretDB's tables exist only once their collection does; create the missing ones (a concurrent creator wins harmlessly). */
async function ensureCollections(db: Db): Promise<void> {
  const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  await Promise.all(
    Object.keys(INDEXES)
      .filter((name) => !existing.has(name))
      .map(async (name) => {
        try {
          await db.createCollection(name);
        } catch (err) {
          // 48 NamespaceExists: another process created it between the list and here.
          if ((err as { code?: number }).code !== 48) throw err;
        }
      }),
  );
}
