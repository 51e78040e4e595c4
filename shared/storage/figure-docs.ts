// The documents of `book_figures` (shared/storage/book-figures.ts says how
// they are kept): their ids, the collection, and the seq bump every writer
// makes before it reads the records its figures come from.
import { randomInt } from 'node:crypto';
import { WRITES_PER_COMMAND } from './bounded-bulk-write.js';
import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';
import type {
  AccountCounterpartyFigures,
  AccountSums,
  CounterpartyFigures,
  CounterpartyOpenFigures,
} from '../domain/book-figures.js';
import { storeAdapter } from './store-adapter.js';

export const BOOK_FIGURES = 'book_figures';

type Kind = 'org' | 'counterparty' | 'counterparty_open' | 'account' | 'account_counterparty' | 'day';

export interface FigureDoc extends Document {
  _id: string;
  org_id: string;
  kind: Kind;
  listed_on: string;
  stale?: '0' | '1';
  seq?: number;
  basis?: number;
  rev?: number;
  /** On a document a whole build made: the organisation's `seq` that build began at (book-figures.ts `beginBuild`). */
  build?: number;
  counterparty_id?: string;
  bank_account_id?: string;
  date?: string;
  currency?: string;
  /** On the organisation's document: the layout its figures were built in (FIGURES_FORMAT). */
  format?: number;
}

/**
 * The layout of the kept figures. An organisation built in another one (or
 * before its document carried one) is built again by the next worker to
 * start, or its next reader or writer. why: 2 keeps what entries leave open
 * per currency, where 1 summed every currency on the counterparty; 3 leaves
 * reversing entries out of it.
 */
export const FIGURES_FORMAT = 3;

export const orgFigureId = (orgId: string): string => `org|${orgId}`;
export const counterpartyFigureId = (orgId: string, cp: string): string => `cp|${orgId}|${cp}`;
export const accountFigureId = (orgId: string, account: string): string => `ba|${orgId}|${account}`;
export const rowFigureId = (orgId: string, account: string, cp: string): string => `row|${orgId}|${account}|${cp}`;
export const openFigureId = (orgId: string, cp: string, currency: string): string => `open|${orgId}|${cp}|${currency}`;
export const accountList = (account: string): string => `account|${account}`;
export const openList = (currency: string): string => `open|${currency}`;

/**
 * A figure document's revision: every write of one (a bump, computed
 * figures, a build, an addition) sets a new one, drawn at random, so an
 * addition (figure-additions.ts) guarded by the revision it read lands only
 * where nothing was written since.
 */
export const newRev = (): number => randomInt(2 ** 48 - 1);

/** A counterparty's master (book-figures.ts), its identity fields. */
export const counterpartyMaster = (orgId: string, cp: string): FigureDoc => ({
  _id: counterpartyFigureId(orgId, cp),
  org_id: orgId,
  kind: 'counterparty',
  listed_on: '',
  counterparty_id: cp,
});
/** An account's master, its identity fields. */
export const accountMaster = (orgId: string, account: string): FigureDoc => ({
  _id: accountFigureId(orgId, account),
  org_id: orgId,
  kind: 'account',
  listed_on: '',
  bank_account_id: account,
});

/** The fields of a counterparty's figures on its master. */
export function counterpartyFields(f: CounterpartyFigures) {
  return { name: f.name, name_key: f.name_key };
}
/**
 * A counterparty's open figures in one currency: its identity and figures;
 * listed while they are there, written empty (unlisted) once its entries in
 * the currency are settled.
 */
export function openFields(f: CounterpartyOpenFigures, listed: boolean) {
  return {
    kind: 'counterparty_open' as const,
    counterparty_id: f.counterparty_id,
    currency: f.currency,
    listed_on: listed ? openList(f.currency) : '',
    open_receivable_minor: f.open_receivable_minor,
    open_payable_minor: f.open_payable_minor,
  };
}
/** An account's row of a counterparty: its identity and figures. */
export function rowFields(f: AccountCounterpartyFigures) {
  return {
    kind: 'account_counterparty' as const,
    bank_account_id: f.bank_account_id,
    counterparty_id: f.counterparty_id,
    listed_on: f.transactions > 0 ? accountList(f.bank_account_id) : '',
    transactions: f.transactions,
    unlinked_bank_minor: f.unlinked_bank_minor,
    name: f.name,
    name_key: f.name_key,
  };
}
/** The fields of an account's sums on its master. */
export function accountFields(f: AccountSums) {
  return {
    amount_sum_minor: f.amount_sum_minor,
    unreconciled_count: f.unreconciled_count,
    unreconciled_sum_minor: f.unreconciled_sum_minor,
  };
}

export const figures = (db: Db) => db.collection<FigureDoc>(BOOK_FIGURES);

export const isDuplicateOnly = (err: unknown): boolean => {
  const e = err as { code?: number; writeErrors?: Array<{ code?: number }> | { code?: number } };
  if (e.code === 11000 && e.writeErrors === undefined) return true;
  const list = Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors ? [e.writeErrors] : [];
  return list.length > 0 && list.every((w) => w.code === 11000);
};

/** Unordered writes whose duplicate-key refusals mean a newer writer got there first. */
export async function writeAll(db: Db, ops: AnyBulkWriteOperation<FigureDoc>[]): Promise<void> {
  // One command per WRITES_PER_COMMAND (shared/storage/bounded-bulk-write.ts), each refused duplicate its own.
  for (let i = 0; i < ops.length; i += WRITES_PER_COMMAND) {
    try {
      await figures(db).bulkWrite(ops.slice(i, i + WRITES_PER_COMMAND), { ordered: false });
    } catch (err) {
      if (!isDuplicateOnly(err)) throw err;
    }
  }
}

/** Bump masters (created when absent): their seqs after the bump, by id. */
export async function bump(db: Db, orgId: string, masters: readonly FigureDoc[]): Promise<Map<string, number>> {
  if (masters.length === 0) return new Map();
  const port = await storeAdapter(db);
  const seqs = async (): Promise<Map<string, number>> =>
    new Map(
      (
        await port.findByIds(
          BOOK_FIGURES,
          masters.map((m) => m._id),
          { owner: orgId, fields: ['seq'] },
        )
      ).map((d) => [String(d._id), Number(d.seq ?? 0)]),
    );
  // The masters there move on by one from the seq just read, by `_id` (one SQL statement on FerretDB 1.x): a
  // bump is any increase, so should one have moved meanwhile, all of them are bumped again below.
  const before = await seqs();
  const there = masters.filter((m) => before.has(m._id));
  const made = await port.writeByIds(
    BOOK_FIGURES,
    orgId,
    there.map((m) => {
      const seq = before.get(m._id)!;
      return { id: m._id, guard: { field: 'seq', value: seq }, set: { seq: seq + 1, stale: '1', rev: newRev() } };
    }),
  );
  const rest = made === there.length ? masters.filter((m) => !before.has(m._id)) : masters;
  if (rest.length > 0)
    await writeAll(
      db,
      rest.map((m) => {
        const { _id, seq: _s, stale: _st, ...identity } = m;
        return {
          updateOne: {
            filter: { _id, org_id: orgId },
            update: { $inc: { seq: 1 }, $set: { stale: '1' as const, rev: newRev() }, $setOnInsert: identity },
            upsert: true,
          },
        };
      }),
    );
  return seqs();
}

/**
 * Write computed figures onto their masters where the seq is still the one
 * the writer bumped to (`seqs`, by id; a master not there gets nothing), by
 * `_id` through the store port (in SQL on FerretDB 1.x).
 */
export async function writeMasters(
  db: Db,
  orgId: string,
  seqs: ReadonlyMap<string, number>,
  writes: ReadonlyArray<{ id: string; set: Document }>,
): Promise<void> {
  await (
    await storeAdapter(db)
  ).writeByIds(
    BOOK_FIGURES,
    orgId,
    writes.map((w) => ({
      id: w.id,
      guard: { field: 'seq', value: seqs.get(w.id) ?? -1 },
      set: { ...w.set, rev: newRev() },
    })),
  );
}

/** Whether an organisation's document says its figures are built, in this layout, and no books import wrote since. */
export const isBuilt = (doc: Document | null | undefined): boolean =>
  doc?.stale === '0' && doc.format === FIGURES_FORMAT;

/** Whether the organisation's figures were built and no books import wrote since. */
export async function orgFresh(db: Db, orgId: string): Promise<boolean> {
  return isBuilt(await (await storeAdapter(db)).findOwnedById(BOOK_FIGURES, orgId, orgFigureId(orgId)));
}

/**
 * Insert figure documents built from whole books, a thousand at a time: in
 * one SQL statement each where the store can (the store port's
 * `insertTogether`), else unordered through the driver. A chunk refused for a
 * duplicate `_id` goes through the driver too, where the duplicates, newer
 * writers' documents, are dropped; a document of a whole build (`build`)
 * then replaces one an earlier build made (a lower `build`), never another
 * writer's (replaceOlderBuilds).
 */
export async function insertFigures(db: Db, docs: readonly FigureDoc[]): Promise<void> {
  const port = await storeAdapter(db);
  for (let i = 0; i < docs.length; i += 1000) {
    const chunk = docs.slice(i, i + 1000);
    if ((await port.insertTogether([{ collection: BOOK_FIGURES, docs: chunk }])) === 'stored') continue;
    try {
      await figures(db).insertMany(chunk, { ordered: false });
    } catch (err) {
      if (!isDuplicateOnly(err)) throw err;
      await replaceOlderBuilds(db, chunk);
    }
  }
}

/**
 * Replace the documents an earlier whole build made, untouched since, with
 * these of a later one (docs/reference/book-reads.md "Kept figures", building
 * them). A document bumped or computed since carries a `seq` (a master) or
 * `basis` (a row) above 0: a later writer's, kept.
 */
async function replaceOlderBuilds(db: Db, docs: readonly FigureDoc[]): Promise<void> {
  const stamped = docs.filter((d) => d.build !== undefined);
  if (stamped.length === 0) return;
  await writeAll(
    db,
    stamped.map((d) => ({
      replaceOne: {
        filter: { _id: d._id, org_id: d.org_id, build: { $lt: d.build! }, ...untouchedSinceBuild },
        replacement: d,
      },
    })),
  );
}

/** A filter on a document as a whole build made it: no writer has bumped (`seq`) or computed (`basis`) it since. */
export const untouchedSinceBuild = { $or: [{ seq: 0 }, { basis: 0 }] };
