// The kept figures of the book reads (docs/reference/book-reads.md "Kept
// figures"; the rules in shared/domain/book-figures.ts), in `book_figures`:
//
// * a counterparty's document (`kind: counterparty`) and an account's
//   (`kind: account`) are "masters": a writer that touched their records bumps
//   their `seq` and marks them `stale: '1'` (after its record writes), reads
//   the records, and writes the figures only where `seq` is still the one it
//   bumped to, with `stale: '0'`. A later bump always reads later records, so
//   the last bumper's figures are the right ones, and a master left stale (a
//   crash, a lost race) is computed again by the next reader or writer;
// * an account's row of a counterparty (`kind: account_counterparty`) is
//   written with `basis`, its counterparty's `seq`: never over a higher one;
// * the organisation's document (`kind: org`): stale when the org's figures
//   were never built (an organisation older than them) or a books import wrote
//   records; the next reader or writer then builds all of them from the whole
//   books (`rebuildFigures`).
//
// * a counterparty's open figures in a currency (`kind: counterparty_open`)
//   are written with `basis` in the same way;
//
// `listed_on` places a document in a list: `account|<id>` for an account's
// rows with transactions, `open|<currency>` for a counterparty's open figures
// in a currency it has an open entry in; the list reads it by (org_id,
// listed_on, counterparty_id) through the store port's `page`
// (docs/indexes.md).
import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';
import {
  accountSums,
  counterpartyFigures,
  type AccountCounterpartyFigures,
  type AccountSums,
  type CounterpartyOpenFigures,
} from '../domain/book-figures.js';
import type { CounterpartyEntry, CounterpartyLink, CounterpartyTransaction } from '../domain/book-reads.js';
import type { BankTransaction } from '../domain/books.js';
import { findOrg } from './books-read.js';
import { collections } from './collections.js';
import { storeAdapter } from './store-adapter.js';
import {
  accountFields,
  accountFigureId,
  accountList,
  accountMaster,
  BOOK_FIGURES,
  bump,
  counterpartyFields,
  counterpartyFigureId,
  counterpartyMaster,
  figures,
  FIGURES_FORMAT,
  insertFigures,
  isBuilt,
  newRev,
  openFields,
  openFigureId,
  openList,
  orgFigureId,
  orgFresh,
  rowFields,
  rowFigureId,
  untouchedSinceBuild,
  writeAll,
  writeMasters,
  type FigureDoc,
} from './figure-docs.js';

import { buildDays, dayMaster, refreshDays } from './day-totals.js';
import { LinkReads, type BumpedRefresh } from './link-reads.js';

export { BOOK_FIGURES, FIGURES_FORMAT, orgFigureId } from './figure-docs.js';

/** What a change touched: the counterparties, accounts and days whose figures it may move. */
export interface TouchedFigures {
  counterparties: ReadonlySet<string>;
  accounts: ReadonlySet<string>;
  days: ReadonlySet<string>;
}

const TXN_FIELDS = [
  '_id',
  'bank_account_id',
  'booking_date',
  'amount_minor',
  'status',
  'counterparty_id',
  'counterparty_name',
];
const ENTRY_FIELDS = ['_id', 'counterparty_id', 'currency', 'lines', 'status', 'reversal_of'];
type FigureTransaction = CounterpartyTransaction & Pick<BankTransaction, 'bank_account_id' | 'status'>;

function withId<T>(doc: Document): T {
  const { _id, ...rest } = doc;
  return { id: _id as string, ...rest } as T;
}

/** A books import wrote records: every figure of the organisation is built again by the next reader or writer. */
export async function invalidateFigures(db: Db, orgId: string): Promise<void> {
  await bump(db, orgId, [{ _id: orgFigureId(orgId), org_id: orgId, kind: 'org', listed_on: '' }]);
}

const touchesNothing = (touched: TouchedFigures): boolean =>
  touched.counterparties.size === 0 && touched.accounts.size === 0 && touched.days.size === 0;

/**
 * Mark the figures `touched` stale after records were written (a journal's
 * writes, made or undone): their masters are bumped, so whoever computes
 * them next reads these records (freshenFigures: the worker's background
 * refresh, or the first reader). True when a figure is left to compute.
 * Marked also while the organisation's are not built: a build under way may
 * have read the records before these writes, and its insert keeps a master
 * bumped meanwhile (storeBuild).
 */
export async function markFigures(db: Db, orgId: string, touched: TouchedFigures): Promise<boolean> {
  if (touchesNothing(touched)) return false;
  await bump(db, orgId, touchedMasters(orgId, touched));
  return true;
}

const touchedMasters = (orgId: string, touched: TouchedFigures) => [
  ...[...touched.days].map((d) => dayMaster(orgId, d)),
  ...[...touched.counterparties].map((c) => counterpartyMaster(orgId, c)),
  ...[...touched.accounts].map((a) => accountMaster(orgId, a)),
];

/**
 * Bring the figures `touched` up to date from the records as they are now;
 * every figure when the organisation's are not built yet.
 */
export async function refreshFigures(db: Db, orgId: string, touched: TouchedFigures): Promise<void> {
  if (touchesNothing(touched)) return;
  if (!(await orgFresh(db, orgId))) {
    await rebuildFigures(db, orgId);
    return;
  }
  // Every master is bumped before any record is read: a link read once serves the days and the counterparties.
  const seqs = await bump(db, orgId, touchedMasters(orgId, touched));
  const bumped = { seqs, links: new LinkReads(db, orgId) };
  await Promise.all([refreshDays(db, orgId, touched.days, bumped), refreshCounterparties(db, orgId, touched, bumped)]);
}

async function refreshCounterparties(
  db: Db,
  orgId: string,
  touched: TouchedFigures,
  bumped: BumpedRefresh,
): Promise<void> {
  if (touched.counterparties.size === 0 && touched.accounts.size === 0) return;
  const cps = [...touched.counterparties];
  const accounts = [...touched.accounts];
  const { seqs, links: linkReads } = bumped;
  const port = await storeAdapter(db);
  const c = collections(db);
  const [org, txnDocs, entryDocs, oldRows, amounts] = await Promise.all([
    findOrg(db, orgId),
    cps.length === 0 ? [] : counterpartyTransactions(db, orgId, cps),
    cps.length === 0
      ? []
      : port.where({
          collection: c.ledgerEntries.collectionName,
          equalities: { org_id: orgId },
          any: { field: 'counterparty_id', values: cps },
          fields: ENTRY_FIELDS,
        }),
    // Their rows on accounts and open figures in currencies (and their masters, passed over below).
    cps.length === 0
      ? []
      : port.where({
          collection: BOOK_FIGURES,
          equalities: { org_id: orgId },
          any: { field: 'counterparty_id', values: cps },
          fields: ['kind', 'bank_account_id', 'counterparty_id', 'currency'],
        }),
    Promise.all(
      accounts.map(async (a) =>
        accountSums(
          a,
          (await port.fields({
            collection: c.bankTransactions.collectionName,
            equalities: { org_id: orgId, bank_account_id: a },
            index: 'page',
            fields: ['amount_minor', 'status'],
          })) as Array<Pick<BankTransaction, 'amount_minor' | 'status'>>,
        ),
      ),
    ),
  ]);
  const transactions = txnDocs.map((d) => withId<FigureTransaction>(d));
  const entries = entryDocs.map((d) => withId<CounterpartyEntry>(d)).filter((e) => e.status === 'posted');
  const links = await linksOf(
    linkReads,
    transactions.map((t) => t.id),
    entries.map((e) => e.id),
  );
  const computed = counterpartyFigures(cps, transactions, entries, links, org?.settlement_accounts ?? []);
  const rows = new Map(computed.accounts.map((r) => [rowFigureId(orgId, r.bank_account_id, r.counterparty_id), r]));
  const open = new Map(computed.open.map((o) => [openFigureId(orgId, o.counterparty_id, o.currency), o]));
  // A row whose last transaction left the account, or open figures whose entries are settled, are written empty:
  // they leave their list.
  const left = new Map<string, CounterpartyOpenFigures>();
  for (const old of oldRows) {
    const cp = String(old.counterparty_id);
    if (old.kind === 'account_counterparty') {
      const id = rowFigureId(orgId, String(old.bank_account_id), cp);
      if (!rows.has(id))
        rows.set(id, {
          bank_account_id: String(old.bank_account_id),
          counterparty_id: cp,
          transactions: 0,
          unlinked_bank_minor: 0,
          name: null,
          name_key: null,
        });
    } else if (old.kind === 'counterparty_open') {
      const id = openFigureId(orgId, cp, String(old.currency));
      if (!open.has(id))
        left.set(id, {
          counterparty_id: cp,
          currency: String(old.currency),
          open_receivable_minor: 0,
          open_payable_minor: 0,
        });
    }
  }
  const ops: AnyBulkWriteOperation<FigureDoc>[] = [];
  const guarded = (id: string, cp: string, set: Document): void => {
    const basis = seqs.get(counterpartyFigureId(orgId, cp)) ?? 0;
    ops.push({
      updateOne: {
        filter: { _id: id, org_id: orgId, $or: [{ basis: { $lte: basis } }, { basis: { $exists: false } }] },
        update: { $set: { ...set, basis, rev: newRev() } },
        upsert: true,
      },
    });
  };
  for (const [id, r] of rows) guarded(id, r.counterparty_id, rowFields(r));
  for (const [id, o] of open) guarded(id, o.counterparty_id, openFields(o, true));
  for (const [id, o] of left) guarded(id, o.counterparty_id, openFields(o, false));
  const masters = [
    ...computed.counterparties.map((f) => ({
      id: counterpartyFigureId(orgId, f.counterparty_id),
      set: { ...counterpartyFields(f), stale: '0' },
    })),
    ...amounts.map((f) => ({
      id: accountFigureId(orgId, f.bank_account_id),
      set: { ...accountFields(f), stale: '0' },
    })),
  ];
  // Rows before masters: a master fresh at its seq has its rows written (figure-additions.ts counts on it).
  await writeAll(db, ops);
  await writeMasters(db, orgId, seqs, masters);
}

/** The most counterparties whose transactions are read one page index range each; more are one read of the organisation's. */
const COUNTERPARTIES_ONE_BY_ONE = 16;

/**
 * `TXN_FIELDS` of every transaction of the organisation naming one of `cps`:
 * by the (org_id, counterparty_id, booking_date) page index, one read per
 * counterparty, for the few an apply touches; else one read filtered by the list.
 */
async function counterpartyTransactions(db: Db, orgId: string, cps: readonly string[]): Promise<Document[]> {
  const port = await storeAdapter(db);
  const collection = collections(db).bankTransactions.collectionName;
  if (cps.length > COUNTERPARTIES_ONE_BY_ONE)
    return port.where({
      collection,
      equalities: { org_id: orgId },
      any: { field: 'counterparty_id', values: cps },
      fields: TXN_FIELDS,
    });
  const each = await Promise.all(
    cps.map((cp) =>
      port.fields({
        collection,
        equalities: { org_id: orgId, counterparty_id: cp },
        index: 'page',
        fields: TXN_FIELDS,
      }),
    ),
  );
  return each.flat();
}

/** Every link of these transactions and of these entries, each once. */
async function linksOf(
  reads: LinkReads,
  transactionIds: readonly string[],
  entryIds: readonly string[],
): Promise<CounterpartyLink[]> {
  const [a, b] = await Promise.all([reads.ofTransactions(transactionIds), reads.ofEntries(entryIds)]);
  const seen = new Set<string>();
  const out: CounterpartyLink[] = [];
  for (const l of [...a, ...b]) {
    if (seen.has(l.id)) continue;
    seen.add(l.id);
    out.push({
      bank_transaction_id: l.bank_transaction_id,
      ledger_entry_id: l.ledger_entry_id,
      amount_minor: l.amount_minor,
    });
  }
  return out;
}

/**
 * Build every figure of the organisation from its whole books: begun (its
 * figures dropped), computed from one read of each collection, stored.
 */
export async function rebuildFigures(db: Db, orgId: string): Promise<void> {
  const build = await beginBuild(db, orgId);
  await storeBuild(db, build, await computeBuild(db, build));
}

/** A whole build of an organisation's figures: `seq`, the organisation document's after the build's bump. */
export interface FigureBuild {
  orgId: string;
  seq: number;
}

/** Bump the organisation's document (a build that began earlier can no longer mark it fresh) and drop its figures. */
export async function beginBuild(db: Db, orgId: string): Promise<FigureBuild> {
  const orgKey = orgFigureId(orgId);
  const seq = (await bump(db, orgId, [{ _id: orgKey, org_id: orgId, kind: 'org', listed_on: '' }])).get(orgKey) ?? 0;
  await figures(db).deleteMany({ org_id: orgId, kind: { $ne: 'org' } });
  return { orgId, seq };
}

/**
 * Store a build's documents; the organisation's document is fresh only if no
 * build or import began since this one (its `seq` unmoved). A build that
 * lost removes what it stored and no writer touched since: a later build
 * replaced the documents both made (insertFigures), and those only the
 * earlier one made describe older books. The winner removes them too, for
 * a loser whose worker died before its own clean-up. A writer that bumped
 * a master meanwhile keeps its own, stale, for the next reader. True when
 * it won.
 */
export async function storeBuild(db: Db, build: FigureBuild, docs: readonly FigureDoc[]): Promise<boolean> {
  const { orgId, seq } = build;
  await insertFigures(db, docs);
  const marked = await figures(db).updateOne(
    { _id: orgFigureId(orgId), org_id: orgId, seq },
    { $set: { stale: '0', format: FIGURES_FORMAT } },
  );
  if (marked.matchedCount === 1) {
    await figures(db).deleteMany({ org_id: orgId, build: { $lt: seq }, ...untouchedSinceBuild });
    return true;
  }
  await figures(db).deleteMany({ org_id: orgId, build: seq, ...untouchedSinceBuild });
  return false;
}

/** Every figure document of the organisation from its whole books, stamped with the build's `seq`. */
export async function computeBuild(db: Db, build: FigureBuild): Promise<FigureDoc[]> {
  const { orgId, seq } = build;
  const port = await storeAdapter(db);
  const c = collections(db);
  const whole = (collection: string, fields: readonly string[]) =>
    port.fields({ collection, equalities: { org_id: orgId }, index: 'gin', fields });
  const [org, txnDocs, entryDocs, linkDocs, accountDocs] = await Promise.all([
    findOrg(db, orgId),
    whole(c.bankTransactions.collectionName, TXN_FIELDS),
    port.fields({
      collection: c.ledgerEntries.collectionName,
      equalities: { org_id: orgId, status: 'posted' },
      index: 'page',
      fields: ENTRY_FIELDS,
    }),
    whole(c.bankLinks.collectionName, ['bank_transaction_id', 'ledger_entry_id', 'amount_minor']),
    whole(c.bankAccounts.collectionName, ['_id']),
  ]);
  const transactions = txnDocs.map((d) => withId<FigureTransaction>(d));
  const entries = entryDocs.map((d) => withId<CounterpartyEntry>(d));
  const cps = new Set<string>();
  for (const t of transactions) if (t.counterparty_id !== null) cps.add(t.counterparty_id);
  for (const e of entries) cps.add(e.counterparty_id);
  const computed = counterpartyFigures(
    [...cps].sort(),
    transactions,
    entries,
    linkDocs as CounterpartyLink[],
    org?.settlement_accounts ?? [],
  );
  const byAccount = new Map<string, FigureTransaction[]>(accountDocs.map((d) => [String(d._id), []]));
  for (const t of transactions) byAccount.get(t.bank_account_id)?.push(t);
  const base = { org_id: orgId, stale: '0' as const, seq: 0 };
  // Each document's revision, and the build that made it.
  const stamp = () => ({ rev: newRev(), build: seq });
  const docs: FigureDoc[] = [
    ...computed.counterparties.map((f) => ({
      ...counterpartyMaster(orgId, f.counterparty_id),
      ...base,
      ...counterpartyFields(f),
      ...stamp(),
    })),
    ...computed.accounts.map((r) => ({
      _id: rowFigureId(orgId, r.bank_account_id, r.counterparty_id),
      org_id: orgId,
      basis: 0,
      ...rowFields(r),
      ...stamp(),
    })),
    ...computed.open.map((o) => ({
      _id: openFigureId(orgId, o.counterparty_id, o.currency),
      org_id: orgId,
      basis: 0,
      ...openFields(o, true),
      ...stamp(),
    })),
    ...[...byAccount].map(([a, own]) => ({
      ...accountMaster(orgId, a),
      ...base,
      ...accountFields(accountSums(a, own)),
      ...stamp(),
    })),
  ];
  return [...docs, ...(await buildDays(db, orgId, org?.settlement_accounts ?? [], seq))];
}

/**
 * Before a read: build the organisation's figures if they are not, and bring
 * every stale master up to date. False when there was nothing to do: a read
 * made meanwhile stands.
 */
export async function freshenFigures(db: Db, orgId: string): Promise<boolean> {
  const [fresh, stale] = await Promise.all([
    orgFresh(db, orgId),
    (await storeAdapter(db)).where({
      collection: BOOK_FIGURES,
      equalities: { org_id: orgId, stale: '1' },
      fields: ['kind', 'counterparty_id', 'bank_account_id', 'date'],
    }),
  ]);
  if (!fresh) {
    await rebuildFigures(db, orgId);
    return true;
  }
  if (stale.length === 0) return false;
  await refreshFigures(db, orgId, {
    counterparties: new Set(stale.filter((d) => d.kind === 'counterparty').map((d) => String(d.counterparty_id))),
    accounts: new Set(stale.filter((d) => d.kind === 'account').map((d) => String(d.bank_account_id))),
    days: new Set(stale.filter((d) => d.kind === 'day').map((d) => String(d.date))),
  });
  return true;
}

/** How many times a read brings the figures up to date before it reads them as they stand. */
export const FRESHEN_ROUNDS = 4;

/**
 * `read` of the kept figures, taken beside the check that they are up to
 * date (one round of the store, not two), and again once nothing is stale.
 * A refresh loses its writes to a later bumper (the worker's background
 * refresh) and leaves the figures stale until that one writes: freshen again
 * until a round finds nothing to do, at most FRESHEN_ROUNDS.
 */
export async function readFresh<T>(
  db: Db,
  orgId: string,
  read: () => Promise<T>,
  freshen: () => Promise<boolean> = () => freshenFigures(db, orgId),
): Promise<T> {
  const [changed, first] = await Promise.all([freshen(), read()]);
  if (!changed) return first;
  for (let round = 1; round < FRESHEN_ROUNDS && (await freshen()); round += 1);
  return read();
}

/** Up to `limit` + 1 documents of a list after counterparty `after`, by counterparty id. */
async function listPage(
  db: Db,
  orgId: string,
  list: string,
  idOf: (cp: string) => string,
  after: string | null,
  limit: number,
): Promise<Document[]> {
  return (await storeAdapter(db)).page({
    collection: BOOK_FIGURES,
    equalities: { org_id: orgId, listed_on: list },
    key: 'counterparty_id',
    after: after === null ? null : { key: after, id: idOf(after) },
    direction: 1,
    limit: limit + 1,
  });
}

/** What one page of an account's counterparty list is made of (shared/domain/book-figures.ts `counterpartyPage`). */
export interface CounterpartyPageFigures {
  onAccount: AccountCounterpartyFigures[];
  open: CounterpartyOpenFigures[];
  openOf: Map<string, CounterpartyOpenFigures>;
  namesOf: Map<string, string | null>;
}

const asOpen = (d: Document): CounterpartyOpenFigures => ({
  counterparty_id: String(d.counterparty_id),
  currency: String(d.currency),
  open_receivable_minor: Number(d.open_receivable_minor ?? 0),
  open_payable_minor: Number(d.open_payable_minor ?? 0),
});

/**
 * The first `limit` + 1 of each list after `after` (the account's rows, the
 * open figures in its `currency`), then in one read what each half lacks: the
 * open figures of the account's rows not on the open page, the organisation's
 * names of the open counterparties not on the account's page.
 */
export async function readCounterpartyPage(
  db: Db,
  orgId: string,
  account: { id: string; currency: string },
  after: string | null,
  limit: number,
): Promise<CounterpartyPageFigures> {
  const [rowDocs, openDocs] = await Promise.all([
    listPage(db, orgId, accountList(account.id), (cp) => rowFigureId(orgId, account.id, cp), after, limit),
    listPage(db, orgId, openList(account.currency), (cp) => openFigureId(orgId, cp, account.currency), after, limit),
  ]);
  const open = openDocs.map(asOpen);
  const openOf = new Map(open.map((o) => [o.counterparty_id, o]));
  const onAccount = new Set(rowDocs.map((d) => String(d.counterparty_id)));
  const lacking = [
    ...[...onAccount].filter((cp) => !openOf.has(cp)).map((cp) => openFigureId(orgId, cp, account.currency)),
    ...open.filter((o) => !onAccount.has(o.counterparty_id)).map((o) => counterpartyFigureId(orgId, o.counterparty_id)),
  ];
  const namesOf = new Map<string, string | null>();
  if (lacking.length > 0)
    for (const d of await (await storeAdapter(db)).findByIds(BOOK_FIGURES, lacking, { owner: orgId })) {
      if (d.kind === 'counterparty_open') {
        if (d.listed_on !== '') openOf.set(String(d.counterparty_id), asOpen(d));
      } else namesOf.set(String(d.counterparty_id), (d.name as string | null | undefined) ?? null);
    }
  return {
    onAccount: rowDocs.map((d) => ({
      bank_account_id: account.id,
      counterparty_id: String(d.counterparty_id),
      transactions: Number(d.transactions ?? 0),
      unlinked_bank_minor: Number(d.unlinked_bank_minor ?? 0),
      name: (d.name as string | null | undefined) ?? null,
      name_key: (d.name_key as string | null | undefined) ?? null,
    })),
    open,
    openOf,
    namesOf,
  };
}

/**
 * The kept sums of these accounts, by id: only fresh ones, and none unless
 * the organisation's figures are built (the caller computes the others).
 */
export async function readAccountSums(
  db: Db,
  orgId: string,
  accounts: readonly string[],
): Promise<Map<string, AccountSums>> {
  const docs = await (
    await storeAdapter(db)
  ).findByIds(BOOK_FIGURES, [orgFigureId(orgId), ...accounts.map((a) => accountFigureId(orgId, a))], { owner: orgId });
  const out = new Map<string, AccountSums>();
  if (!docs.some((d) => d.kind === 'org' && isBuilt(d))) return out;
  for (const d of docs)
    if (d.kind === 'account' && d.stale === '0' && typeof d.amount_sum_minor === 'number')
      out.set(String(d.bank_account_id), {
        bank_account_id: String(d.bank_account_id),
        amount_sum_minor: d.amount_sum_minor,
        unreconciled_count: Number(d.unreconciled_count),
        unreconciled_sum_minor: Number(d.unreconciled_sum_minor),
      });
  return out;
}

/**
 * The organisations stored before kept figures existed (no organisation
 * document in `book_figures`) or built in an earlier layout (FIGURES_FORMAT),
 * built one after the other: what a worker does at start (worker/runtime.ts). An organisation marked stale since (an import
 * undone, a settlement change, a crash) is built by its next reader or writer,
 * so that a start never rebuilds every organisation. `stop` is asked between
 * organisations.
 */
export async function backfillFigures(db: Db, stop: () => boolean): Promise<number> {
  const orgs = await collections(db)
    .orgs.find({}, { projection: { _id: 1 } })
    .toArray();
  const built = await (
    await storeAdapter(db)
  ).findByIds(
    BOOK_FIGURES,
    orgs.map((o) => orgFigureId(String(o._id))),
    { fields: ['org_id', 'format'] },
  );
  const known = new Set(built.filter((d) => d.format === FIGURES_FORMAT).map((d) => String(d.org_id)));
  let count = 0;
  for (const org of orgs) {
    if (stop()) break;
    const orgId = String(org._id);
    if (known.has(orgId)) continue;
    await rebuildFigures(db, orgId);
    count += 1;
  }
  return count;
}
