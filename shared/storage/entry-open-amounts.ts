// The stored open amounts of entries (docs/design/entry-open-amounts.md):
// one row per posted entry that its links leave open, kept by the worker
// after every apply journal (apply and undo), by every books import, and
// filled once for an organisation stored before the rows existed. Each row is
// recomputed from its entry's links as stored and from the entry (or, after a
// journal that wrote no entry, the entry's fields its row holds), never
// adjusted by a delta, so a refresh run twice writes the same rows.
import type { Db, Document } from 'mongodb';
import type { BankLink } from '../domain/books.js';
import {
  linkedByEntry,
  openAmountRows,
  reopenedRows,
  type EntryOpenAmount,
  type OpenAmountEntry,
  type OpenDirection,
  type TouchedEntries,
} from '../domain/entry-open-amounts.js';
import { canonicalJson } from '../domain/plan-hash.js';
import { dayAfter } from '../domain/dates.js';
import type { IsoDate } from '../domain/books.js';
import { CANDIDATES_PER_SIDE } from '../domain/match-suggestions.js';
import { findOrg } from './books-read.js';
import { readFields } from './books-whole.js';
import { collections, type EntryOpenAmountDoc } from './collections.js';
import { storeAdapter } from './store-adapter.js';
import { LinkReads } from './link-reads.js';
import { isUniqueViolation } from './unique-violation.js';

const ENTRY_FIELDS = [
  '_id',
  'status',
  'entry_date',
  'reference',
  'counterparty_id',
  'currency',
  'lines',
  'reversal_of',
] as const;

/**
 * The rule the stored rows were computed by, on the organisation's fill mark:
 * an organisation filled by another is filled again at worker start. why: 2
 * gives a reversing entry no row, where 1 gave it one.
 */
export const OPEN_AMOUNTS_FORMAT = 2;
const INSERT_CHUNK = 1000;

const toDoc = (orgId: string, r: EntryOpenAmount): EntryOpenAmountDoc => {
  const { id, ...fields } = r;
  return { _id: id, org_id: orgId, ...fields };
};

const asRow = (d: Document): EntryOpenAmount => {
  const { _id, org_id: _org, ...fields } = d;
  return { id: _id as string, ...fields } as EntryOpenAmount;
};

const asEntry = (d: Document): OpenAmountEntry => {
  const { _id, ...rest } = d;
  return { id: _id as string, ...rest } as OpenAmountEntry;
};

/**
 * Make the stored rows of `ids` what `wanted` says: rows absent from it or
 * changed are deleted, new and changed ones inserted. `existing`: the rows
 * stored now for those ids. why not replaces: through FerretDB 1.24 an upsert
 * by `_id` cost several times a delete by `_id` plus its share of an insertMany.
 */
async function syncRows(
  db: Db,
  orgId: string,
  wanted: readonly EntryOpenAmountDoc[],
  existing: ReadonlyMap<string, Document>,
): Promise<void> {
  const c = collections(db).entryOpenAmounts;
  const wantedIds = new Set(wanted.map((d) => d._id));
  const writes = wanted.filter((doc) => {
    const stored = existing.get(doc._id);
    return !stored || canonicalJson(stored) !== canonicalJson(doc);
  });
  const written = new Set(writes.map((d) => d._id));
  const stale = [...existing.keys()].filter((id) => !wantedIds.has(id) || written.has(id));
  await deleteRows(db, orgId, stale);
  for (let i = 0; i < writes.length; i += INSERT_CHUNK) {
    const chunk = writes.slice(i, i + INSERT_CHUNK);
    try {
      await c.insertMany(chunk, { ordered: false });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Another refresh of the same entry wrote its row meanwhile: ours is computed from the store as it is now.
      for (const doc of chunk) {
        await c.deleteOne({ _id: doc._id });
        await c.insertOne(doc);
      }
    }
  }
}

/** Delete the organisation's rows of these ids, by `_id` through the store port (in SQL on FerretDB 1.x). */
async function deleteRows(db: Db, orgId: string, ids: readonly string[]): Promise<void> {
  await (
    await storeAdapter(db)
  ).writeByIds(
    collections(db).entryOpenAmounts.collectionName,
    orgId,
    ids.map((id) => ({ id })),
  );
}

/**
 * The open rows of these entries, recomputed from their links as stored now
 * and from the entries: an entry with a row, when no entry was written
 * (`entriesWritten` false), from its row (reopenedRows), the others as
 * stored.
 */
async function refreshEntries(
  db: Db,
  orgId: string,
  entryIds: readonly string[],
  entriesWritten: boolean,
): Promise<void> {
  if (entryIds.length === 0) return;
  const adapter = await storeAdapter(db);
  const c = collections(db);
  const readEntries = (ids: readonly string[]) =>
    ids.length === 0
      ? Promise.resolve([])
      : adapter.where({
          collection: c.ledgerEntries.collectionName,
          equalities: { org_id: orgId },
          any: { field: '_id', values: ids },
          owner: orgId,
          fields: ENTRY_FIELDS,
        });
  const [org, entryLinks, existing, written] = await Promise.all([
    findOrg(db, orgId),
    new LinkReads(db, orgId).ofEntries(entryIds),
    adapter.where({
      collection: c.entryOpenAmounts.collectionName,
      equalities: { org_id: orgId },
      any: { field: '_id', values: entryIds },
      owner: orgId,
    }),
    entriesWritten ? readEntries(entryIds) : null,
  ]);
  const linked = linkedByEntry(entryLinks);
  const stored = new Map(existing.map((d) => [d._id as string, d]));
  const entries = written ?? (await readEntries(entryIds.filter((id) => !stored.has(id))));
  const rows = [
    ...openAmountRows(entries.map(asEntry), linked, org?.settlement_accounts ?? []),
    ...(written ? [] : reopenedRows(existing.map(asRow), linked)),
  ];
  await syncRows(
    db,
    orgId,
    rows.map((r) => toDoc(orgId, r)),
    stored,
  );
}

/** Recompute every open row of the organisation (a books import, or the first fill of one stored before the rows). */
export async function rebuildOpenAmounts(db: Db, orgId: string): Promise<void> {
  const c = collections(db);
  const [org, entries, links, existing] = await Promise.all([
    findOrg(db, orgId),
    readFields(db, {
      collection: c.ledgerEntries.collectionName,
      equalities: { org_id: orgId, status: 'posted' },
      index: 'page',
      fields: ENTRY_FIELDS,
    }),
    readFields(db, {
      collection: c.bankLinks.collectionName,
      equalities: { org_id: orgId },
      index: 'gin',
      fields: ['ledger_entry_id', 'amount_minor'],
    }),
    c.entryOpenAmounts.find({ org_id: orgId }).toArray(),
  ]);
  const rows = openAmountRows(
    entries.map(asEntry),
    linkedByEntry(links as Array<Pick<BankLink, 'ledger_entry_id' | 'amount_minor'>>),
    org?.settlement_accounts ?? [],
  );
  await syncRows(
    db,
    orgId,
    rows.map((r) => toDoc(orgId, r)),
    new Map(existing.map((d) => [d._id, d as Document])),
  );
  await c.entryOpenFills.updateOne(
    { _id: orgId },
    { $set: { org_id: orgId, format: OPEN_AMOUNTS_FORMAT } },
    { upsert: true },
  );
}

/**
 * After an apply journal ran (forward or undone): the rows of every entry its
 * writes can have changed.
 */
export async function refreshOpenAmounts(db: Db, orgId: string, touched: TouchedEntries): Promise<void> {
  if (touched.whole_org) return rebuildOpenAmounts(db, orgId);
  const ids = new Set(touched.entry_ids);
  if (touched.link_ids.length > 0) {
    const updated = await (
      await storeAdapter(db)
    ).where({
      collection: collections(db).bankLinks.collectionName,
      equalities: { org_id: orgId },
      any: { field: '_id', values: touched.link_ids },
      owner: orgId,
      fields: ['ledger_entry_id'],
    });
    for (const l of updated) if (typeof l.ledger_entry_id === 'string') ids.add(l.ledger_entry_id);
  }
  await refreshEntries(db, orgId, [...ids], touched.entries_written);
}

/**
 * Organisations stored before the rows existed get theirs once (at worker
 * start): every organisation without a fill mark of this rule
 * (OPEN_AMOUNTS_FORMAT). Returns how many were filled.
 */
export async function fillMissingOpenAmounts(db: Db): Promise<number> {
  const c = collections(db);
  const [orgs, filled] = await Promise.all([
    c.orgs.find({}, { projection: { _id: 1 } }).toArray(),
    c.entryOpenFills.find({}, { projection: { _id: 1, format: 1 } }).toArray(),
  ]);
  const done = new Set(filled.filter((f) => f.format === OPEN_AMOUNTS_FORMAT).map((f) => f._id));
  let count = 0;
  for (const org of orgs) {
    if (done.has(org._id)) continue;
    await rebuildOpenAmounts(db, org._id);
    count += 1;
  }
  return count;
}

/** Which open entries a match suggestion ranks (docs/reference/http-api.md §8.2 "Candidates"). */
export interface CandidateQuery {
  currency: string;
  direction: OpenDirection;
  /** What the transaction has left unlinked: the exact group's open amount. */
  remaining_minor: number;
  /** The transaction's counterparty: its own group; null, no such group. */
  counterparty_id: string | null;
  booking_date: IsoDate;
}

/**
 * The candidates of a match suggestion: of each group (every open entry of
 * the currency and direction; those whose open amount is the remaining
 * amount; the transaction's counterparty's), the CANDIDATES_PER_SIDE nearest
 * the booking date on or before it and as many after it, each read along its
 * page index (shared/storage/indexes.ts) in (entry_date, `_id`) order, so the
 * same books give the same candidates. Each entry once.
 */
export async function readCandidateEntries(db: Db, orgId: string, q: CandidateQuery): Promise<EntryOpenAmount[]> {
  const adapter = await storeAdapter(db);
  const collection = collections(db).entryOpenAmounts.collectionName;
  const base = { org_id: orgId, currency: q.currency, direction: q.direction };
  const groups: Array<{ equalities: Record<string, string | number>; limit: number }> = [
    { equalities: base, limit: CANDIDATES_PER_SIDE.near },
    { equalities: { ...base, open_minor: q.remaining_minor }, limit: CANDIDATES_PER_SIDE.amount },
    ...(q.counterparty_id === null
      ? []
      : [{ equalities: { ...base, counterparty_id: q.counterparty_id }, limit: CANDIDATES_PER_SIDE.counterparty }]),
  ];
  const sides = [
    { to: q.booking_date, direction: -1 as const },
    { from: dayAfter(q.booking_date), direction: 1 as const },
  ];
  const pages = await Promise.all(
    groups.flatMap(({ equalities, limit }) =>
      sides.map((side) => adapter.page({ collection, equalities, key: 'entry_date', after: null, limit, ...side })),
    ),
  );
  const byId = new Map(pages.flat().map((d) => [d._id as string, d]));
  return [...byId.values()].map(asRow);
}

/** Every stored row of the organisation (the consistency check of the tests). */
export async function readAllOpenAmounts(db: Db, orgId: string): Promise<EntryOpenAmount[]> {
  const docs = await collections(db).entryOpenAmounts.find({ org_id: orgId }).toArray();
  return docs.map(({ _id, org_id: _org, ...rest }) => ({ id: _id, ...rest }));
}
