// The store port (docs/design/architecture.md "The store port"): the reads and
// writes that have more than one implementation, as what the code needs of
// them. Two adapters answer it: the driver's (shared/storage/mongo-adapter.ts),
// which MongoDB runs and which runs on FerretDB without SQL, and the one on
// FerretDB 1.x's own PostgreSQL tables (shared/storage/ferretdb/), built on
// the driver's. Every method answers definitely; an adapter that cannot
// answer a query its own way asks the driver's adapter.
import type { Collection, Db, Document, WithId } from 'mongodb';
import type { BankLink, BankTransaction, LedgerEntry } from '../domain/books.js';
import type { ApplyLeaseStepDoc, AuditEventDoc, HistoryItem, IdempotencyKeyDoc, PlanLockDoc } from './collections.js';

/** One keyset page (shared/storage/books-pages.ts builds them). */
export interface PageQuery {
  collection: string;
  /** Top-level equalities of strings or whole numbers, `org_id` among them; undefined ones are no filter. */
  equalities: Record<string, string | number | undefined>;
  /** The sort key; `_id` breaks ties. */
  key: string;
  /** Inclusive bounds on the key (ISO dates compare as strings). */
  from?: string | undefined;
  to?: string | undefined;
  /** Strictly after (ascending) or before (descending) this (key, id). */
  after: { key: string; id: string } | null;
  direction: 1 | -1;
  limit: number;
}

/**
 * A whole-account or whole-organisation read of a few top-level fields (the
 * counterparty list, an account's figures: docs/reference/book-reads.md "Cost").
 */
export interface FieldsQuery {
  collection: string;
  /** Top-level string equalities, org_id first. */
  equalities: Record<string, string>;
  /**
   * Which index the equalities are read by on FerretDB: the page indexes'
   * btree columns (a page order of shared/storage/indexes.ts starts with
   * exactly these fields), or the GIN containments every equality field has.
   */
  index: 'page' | 'gin';
  /** The top-level fields returned, as a driver projection `{field: 1}` gives them: `_id` only when named, an absent field left out. */
  fields: readonly string[];
  /**
   * Inclusive bounds on one more field (ISO dates compare as strings); with
   * `index: 'page'`, a page order of the equalities then this field.
   */
  range?: { key: string; from: string; to: string } | undefined;
}

/**
 * For each value of `per`, the document that comes last by (`key`, `_id`)
 * among those with the equalities: the latest name of each counterparty.
 */
export interface LatestQuery {
  collection: string;
  equalities: Record<string, string>;
  per: string;
  values: readonly string[];
  key: string;
  fields: readonly string[];
}

/**
 * The document whose `key` (a number field, unique among the documents the
 * equalities select) is highest: an organisation's policy in force, a
 * chain's latest step.
 */
export interface HighestQuery {
  collection: string;
  /** Top-level string equalities, org_id first: the leading fields of an index whose next field is `key`. */
  equalities: Record<string, string>;
  key: string;
}

/** A read of every document with these top-level string equalities, and (optionally) one field equal to any of `values`. */
export interface WhereQuery {
  collection: string;
  /** Equalities of string or number values; a dotted name is a field of an embedded document (`extracted.total_minor`). */
  equalities: Record<string, string | number>;
  any?: { field: string; values: readonly string[] } | undefined;
  /**
   * Only these top-level fields (`_id` always comes too): a field the caller
   * does not read (a staged operation's plan, tens of MB as JSON) is never
   * sent nor decoded.
   */
  fields?: readonly string[] | undefined;
  /**
   * Only this organisation's documents, where `any.field` is a globally
   * unique id (docs/indexes.md "Reads by id alone"): the store may read by
   * the id alone and check the owner itself.
   */
  owner?: string | undefined;
}

/** Documents for one collection, inserted in this order. */
export interface InsertGroup {
  collection: string;
  docs: readonly object[];
}

/**
 * `stored`: every document was inserted, in one statement. `duplicate`: a
 * unique index refused one, and nothing was inserted. `declined`: this store
 * cannot insert them all or none (MongoDB without a transaction, a document
 * FerretDB's SQL would type otherwise, no table yet); nothing was inserted,
 * and the caller writes through its own driver path.
 */
export type InsertOutcome = 'stored' | 'duplicate' | 'declined';

/**
 * One write by `_id` (the store port's writeByIds): `$set` these top-level
 * fields, or, without `set`, delete the document; with `guard`, only where
 * that top-level field holds that number (a record's `version`, a figure's `seq`).
 */
export interface IdWrite {
  id: string;
  guard?: { field: string; value: number } | undefined;
  set?: Document | undefined;
}

/** A transaction found by its bank reference: what a statement import's apply checks. */
export interface ReferencedTransaction {
  id: string;
  version: number;
  bank_reference: string;
}

/** What a link repair reads (shared/storage/repair-records-read.ts). */
export interface RepairRecords {
  transactions: BankTransaction[];
  entries: LedgerEntry[];
  links: BankLink[];
}

/** A book record at a version (a version claim's subject). */
export interface VersionedId {
  id: string;
  version: number;
}

/** A document of an organisation. */
export type OwnedDocument = Document & { org_id: string };

/** What the server needs indexed beyond MongoDB's declarations, per collection (shared/storage/indexes.ts). */
export interface ServerIndexTarget {
  collection: string;
  /** Fields read by top-level equality, `_id` first. */
  fields: string[];
  /** Keyset page orders: equality fields, then the sort key. */
  pages: readonly (readonly string[])[];
}

/** What ensureServerIndexes did. */
export interface ServerIndexReport {
  /** Indexes this call created. */
  created: string[];
  /** Indexes that were there already. */
  existing: number;
  /** Whether the server now plans the store's statements with their parameters inlined. */
  force_custom_plan: boolean;
  /** What could not be done. */
  warnings: string[];
}

/**
 * How the driver is best used on the server behind it: what differs between
 * MongoDB and FerretDB when both are spoken to through the driver
 * (docs/design/architecture.md "The store port", docs/indexes.md "Why
 * FerretDB needs more"). The `mongo` adapter carries MongoDB's answers
 * (shared/storage/mongo-adapter.ts `mongoStrategy`) or, on FerretDB,
 * FerretDB's (shared/storage/ferretdb/driver-strategy.ts); the accelerated
 * adapter carries FerretDB's. Every method gives the same documents either
 * way; only the queries differ.
 */
export interface DriverStrategy {
  /**
   * The documents whose `field` is one of `ids` (only `orgId`'s when given;
   * null: any organisation's), in no particular order: how a big list of ids
   * is queried.
   */
  findWhereIn<D extends OwnedDocument>(
    collection: Collection<D>,
    orgId: string | null,
    field: string,
    ids: readonly string[],
    projection?: Document,
  ): Promise<WithId<D>[]>;
  /** The organisation's document with this `_id`; null when there is none or it is another's (docs/indexes.md "Reads by id alone"). */
  findOwnedById<D extends OwnedDocument>(
    collection: Collection<D>,
    orgId: string,
    id: string,
    projection?: Document,
  ): Promise<WithId<D> | null>;
  /** As findWhereIn, for a field whose values are globally unique ids: the owner may be checked here rather than in the query. */
  findOwnedWhereIn<D extends OwnedDocument>(
    collection: Collection<D>,
    orgId: string,
    field: string,
    ids: readonly string[],
    projection?: Document,
  ): Promise<WithId<D>[]>;
  /**
   * As findOwnedWhereIn, whatever the number of ids, by the field's index
   * alone: a read whose cost follows the list, never the organisation
   * (docs/indexes.md "Reads sized by the repair: the link repair").
   */
  findOwnedEach<D extends OwnedDocument>(
    collection: Collection<D>,
    orgId: string,
    field: string,
    ids: readonly string[],
  ): Promise<WithId<D>[]>;
  /**
   * Whether a big link repair first tries one pass over the organisation's
   * links before reading them id by id (docs/indexes.md "Big repairs").
   */
  readonly orgPassFirst: boolean;
  /**
   * Whether the server gets a collection's `pageOnly` ordinary indexes
   * (shared/storage/indexes.ts): MongoDB reads those pages by them; FerretDB
   * reads them from its page btrees in SQL, and its own btree of the same
   * fields would only cost writes.
   */
  readonly makesPageOnlyIndexes: boolean;
  /** The account's transactions whose string `bank_reference` is one of `references` (distinct). */
  accountReferences(
    transactions: Collection<OwnedDocument>,
    orgId: string,
    bankAccountId: string,
    references: readonly string[],
  ): Promise<ReferencedTransaction[]>;
  /**
   * Build the indexes the server needs beyond the ordinary ones (idempotent);
   * null when it needs none or cannot be asked (said in the log).
   */
  ensureServerIndexes(
    db: Db,
    targets: readonly ServerIndexTarget[],
    options: { postgresUrl?: string | undefined; logger?: StoreLogger | undefined },
  ): Promise<ServerIndexReport | null>;
}

/** The part of a logger the store speaks to. */
export interface StoreLogger {
  info: (obj: object, msg: string) => void;
  warn: (obj: object, msg: string) => void;
}

/** The store port: one adapter is bound to each `Db` handle at start (shared/storage/store-adapter.ts). */
export interface StorePort {
  /** Which adapter answers: `mongo` (the driver) or `ferretdb` (SQL on FerretDB 1.x's PostgreSQL tables). */
  readonly name: 'mongo' | 'ferretdb';
  /** How this adapter uses the driver on the server behind it. */
  readonly driver: DriverStrategy;
  /** The page's stored documents, in order, as the driver returns them. */
  page(q: PageQuery): Promise<Document[]>;
  /** `q.fields` of every document with the equalities, as a projected find gives them; documents and their keys in no particular order. */
  fields(q: FieldsQuery): Promise<Document[]>;
  /** At most one document per value (the last by (key, `_id`)), `q.fields` of each as `fields` gives them. */
  latest(q: LatestQuery): Promise<Document[]>;
  /** The document with the highest `key` among those with the equalities (HighestQuery), whole; null when there is none. */
  highest(q: HighestQuery): Promise<Document | null>;
  /** Every document `q` selects, in no particular order (`_id` always among the fields). */
  where(q: WhereQuery): Promise<Document[]>;
  /** The document of `collection` with this `_id` (any organisation's), projected as the driver projects. */
  findById(collection: string, id: string, projection?: Document): Promise<Document | null>;
  /** The organisation's document with this `_id`; null when there is none or it is another's. A projection is an inclusion, and `org_id` comes too. */
  findOwnedById(collection: string, orgId: string, id: string, projection?: Document): Promise<Document | null>;
  /** The documents of `collection` with these `_id`s (only `owner`'s when given), only `fields` (and `_id`) when given, in no particular order. */
  findByIds(
    collection: string,
    ids: readonly string[],
    options?: { fields?: readonly string[] | undefined; owner?: string | undefined },
  ): Promise<Document[]>;
  /**
   * The `version` of each of the organisation's documents of `collection`
   * among these `_id`s (an apply's preconditions it does not read whole); a
   * document not there, another organisation's or without a numeric version
   * is absent. On FerretDB 1.x one SQL statement of three values per row.
   */
  versionsByIds(collection: string, orgId: string, ids: readonly string[]): Promise<Map<string, number>>;
  /**
   * A link repair's records: the account's transactions with the counterparty,
   * the counterparty's entries, the links of those transactions and to those
   * entries, and every other entry such a link points to.
   */
  repairRecords(orgId: string, accountId: string, counterpartyId: string): Promise<RepairRecords>;
  /** The account's transactions whose string `bank_reference` is one of `references`. */
  accountReferences(
    orgId: string,
    bankAccountId: string,
    references: readonly string[],
  ): Promise<ReferencedTransaction[]>;
  // The atomic primitives (docs/operating/reliability.md "Atomic primitives"):
  // each decided by one insert under a unique `_id` or unique index; a delete
  // goes by an `_id` that names its holder.

  /**
   * Claim each `{id, version}` of `collection` for `holder` (version claims,
   * shared/storage/record-claims.ts): the ids whose claim `holder` now holds
   * (taken now, held from an earlier attempt, or taken over from an import's
   * claim lapsed at `now`); the others are another writer's.
   */
  reserveVersions(
    orgId: string,
    collection: string,
    wanted: readonly VersionedId[],
    holder: string,
    now: Date,
  ): Promise<Set<string>>;
  /**
   * Take scope locks (shared/storage/plan-locks.ts): `first` (one of `locks`)
   * alone, then the others in one ordered insert. True when every lock went
   * in; false when the unique index on `key` refused one (those inserted
   * before it stay: the caller gives them back).
   */
  takeLocks(locks: readonly PlanLockDoc[], first?: PlanLockDoc): Promise<boolean>;
  /** Delete every lock the operation holds (each lock's `_id` names its holder). */
  releaseLocks(orgId: string, operationId: string): Promise<void>;
  /** Delete one dead lock by its `_id` (which names its holder): how many went (0 or 1). */
  dropLock(lock: Pick<PlanLockDoc, '_id' | 'staged_operation_id'>): Promise<number>;
  /**
   * Insert the apply lease's next step (shared/storage/staged-operation-status.ts);
   * false when another step took its `_id` (`OPERATION#SEQ`) first.
   */
  appendLeaseStep(step: ApplyLeaseStepDoc): Promise<boolean>;
  /**
   * Claim a transition (shared/storage/audit-events.ts): insert its audit
   * event under the `_id` derived from (operation, status left); false when
   * another transition out of that status holds it.
   */
  claimTransition(claim: AuditEventDoc): Promise<boolean>;
  /**
   * Write a claimed transition onto the operation still in status `from`
   * (`set` includes the new status, `item` is pushed on its history); false
   * when it has left `from` (a retried winner writes once).
   */
  writeTransition(orgId: string, id: string, from: string, set: Document, item: HistoryItem): Promise<boolean>;
  /**
   * Remove an expired idempotency record, claimed by inserting the marker
   * `RECORD~expired~JOB` first (shared/storage/idempotency-keys.ts); false
   * when another request claimed its removal.
   */
  takeOverExpiredKey(record: IdempotencyKeyDoc): Promise<boolean>;
  /**
   * Reserve the organisation's next event sequence: the number, or `taken`
   * when another writer reserved it first (the caller tries again). The
   * reservation records the time it is written (shared/storage/events.ts).
   */
  reserveSequence(orgId: string): Promise<number | 'taken'>;
  /** The organisation's highest event sequence reserved, and the highest reserved at or before `cutoff` (ISO). */
  sequenceMarks(orgId: string, cutoff: string): Promise<{ final: number; highest: number }>;
  /**
   * Whether insertTogether can store anything here: a writer that has to
   * prepare its documents first (a staging waits for its event's
   * reservation) asks before it does.
   */
  readonly insertsTogether: boolean;
  /**
   * Make each write (IdWrite) on the organisation's document with its `_id`,
   * unordered; the writes name distinct documents. How many matched: a write
   * whose document is absent, another's or not at its version makes nothing.
   * What the store refuses is thrown as the driver throws it. On FerretDB 1.x
   * in SQL (docs/indexes.md "Writes in SQL"); through the driver in commands
   * of at most WRITES_PER_COMMAND (shared/storage/bounded-bulk-write.ts).
   */
  writeByIds(collection: string, orgId: string, writes: readonly IdWrite[]): Promise<number>;
  /** Insert every group's documents all or none, in one statement where the store has one (see InsertOutcome). */
  insertTogether(groups: readonly InsertGroup[]): Promise<InsertOutcome>;
  /**
   * Bring the planner's statistics of these collections up to date after a
   * bulk load (docs/indexes.md "Statistics after an import"); the names of
   * those refreshed (none where the store needs no such step).
   */
  refreshStatistics(collections: readonly string[]): Promise<string[]>;
  /** Let go of what the adapter holds (a connection pool); the `Db` stays open. */
  close(): Promise<void>;
}
