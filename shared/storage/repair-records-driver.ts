// The link repair's records, read by the record set alone (docs/indexes.md
// "Reads sized by the repair"): every read is a top-level equality on an indexed
// field, and its cost follows the record set, never the organisation.
//
// why not findWhereIn: on FerretDB it turns more than EQUALITY_QUERY_MAX ids
// into one `$in` (FerretDB pushes down only the org_id equality and filters
// the whole organisation's documents in Go) and more than IN_CHUNK_SIZE into
// an unbounded pass over the organisation. A counterparty with a few hundred
// entries then made a repair read every link of the org.
//
// The links by the field's index, whatever their number (the DriverStrategy's
// findOwnedEach: on FerretDB one equality read per id), and where the
// strategy says so (FerretDB), adaptively (docs/indexes.md "Big repairs"):
// - a small scope (fewer than ORG_PASS_MIN_IDS transaction and entry ids):
//   one equality read per id, a GIN index lookup of about a millisecond
//   whatever the org's size;
// - a big record set: first one pass over the org's links (one equality on
//   org_id, read in batches) that gives up after ORG_PASS_LINKS_PER_ID links
//   per id. An org whose links are few next to the record set (the usual case for
//   a big record set) is then read in a handful of round trips instead of tens of
//   thousands; a bigger org stops the pass early and falls back to the
//   equality reads, so the pass adds at most a bounded fraction to them and
//   the cost still follows the record set.
// Links carry no account or counterparty of their own to select the record set
// by; docs/indexes.md weighs that denormalisation against this.
//
// This is the mongo adapter's read (shared/storage/mongo-adapter.ts
// `repairRecords`); on FerretDB 1.x the FerretDB adapter reads the record set in
// five SQL queries on FerretDB's own btree indexes instead (docs/indexes.md
// "Worker reads in SQL").
import type { Collection, Db, WithId } from 'mongodb';
import type { BankLink, BankTransaction, LedgerEntry } from '../domain/books.js';
import { collections, type Stored } from './collections.js';
import { fromStored } from './documents.js';
import type { DriverStrategy, RepairRecords } from './port.js';

/** From this many transaction and entry ids in all, FerretDB first tries one pass over the org's links. */
export const ORG_PASS_MIN_IDS = 500;

/**
 * The pass gives up after this many of the org's links per id. Measured on
 * FerretDB 1.24.2 / PostgreSQL 15 (docs/indexes.md "Big repairs"): one
 * equality read costs FerretDB, PostgreSQL and the driver about 1.6 ms of
 * CPU, streaming one document of a pass at most 0.2 ms, so a pass abandoned
 * at 4 links per id adds at most about half to the equality reads that
 * follow (within 2×, holds for every record set size: bench/README.md).
 */
export const ORG_PASS_LINKS_PER_ID = 4;

/** Links per round trip of the pass. */
const ORG_PASS_BATCH = 2000;

type StoredLink = WithId<Stored<BankLink>>;

/**
 * What the repair rule needs to see (its LinkRepairInput): every transaction
 * of the account with the counterparty (any date: the date decides the
 * record set), every entry of the counterparty, the links of those transactions and
 * the links to those entries (from any transaction), and every other entry
 * such a link points to.
 */
export async function readRepairRecords(
  db: Db,
  driver: DriverStrategy,
  orgId: string,
  accountId: string,
  counterpartyId: string,
): Promise<RepairRecords> {
  const c = collections(db);
  const [transactionDocs, entryDocs] = await Promise.all([
    c.bankTransactions.find({ org_id: orgId, bank_account_id: accountId, counterparty_id: counterpartyId }).toArray(),
    c.ledgerEntries.find({ org_id: orgId, counterparty_id: counterpartyId }).toArray(),
  ]);
  const transactions = transactionDocs.map((d) => fromStored<BankTransaction>(d));
  const entries = entryDocs.map((d) => fromStored<LedgerEntry>(d));
  const transactionIds = transactions.map((t) => t.id);
  const entryIds = entries.map((e) => e.id);
  const { ofTransactions, toEntries } = await scopeLinks(driver, c.bankLinks, orgId, transactionIds, entryIds);
  const links = new Map<string, BankLink>();
  for (const doc of [...ofTransactions, ...toEntries]) links.set(doc._id, fromStored<BankLink>(doc));

  // Links of these transactions to entries of other counterparties: the plan
  // must see those entries to release the links.
  const loaded = new Set(entryIds);
  const missing = [...new Set(ofTransactions.map((l) => l.ledger_entry_id).filter((id) => !loaded.has(id)))];
  const others = (await driver.findOwnedEach(c.ledgerEntries, orgId, '_id', missing)).map((d) =>
    fromStored<LedgerEntry>(d),
  );
  return { transactions, entries: [...entries, ...others], links: [...links.values()] };
}

/** The links of the transactions and the links to the entries. */
async function scopeLinks(
  driver: DriverStrategy,
  links: Collection<Stored<BankLink>>,
  orgId: string,
  transactionIds: readonly string[],
  entryIds: readonly string[],
): Promise<{ ofTransactions: StoredLink[]; toEntries: StoredLink[] }> {
  const ids = transactionIds.length + entryIds.length;
  if (ids >= ORG_PASS_MIN_IDS && driver.orgPassFirst) {
    const passed = await orgPass(links, orgId, new Set(transactionIds), new Set(entryIds), ids * ORG_PASS_LINKS_PER_ID);
    if (passed) return passed;
  }
  const [ofTransactions, toEntries] = await Promise.all([
    driver.findOwnedEach(links, orgId, 'bank_transaction_id', transactionIds),
    driver.findOwnedEach(links, orgId, 'ledger_entry_id', entryIds),
  ]);
  return { ofTransactions, toEntries };
}

/**
 * One pass over the org's links (equality on org_id, GIN-indexed), sorted
 * here into the record set's; null when the org has more than `budget` links
 * (at most budget + 1 are read).
 */
async function orgPass(
  links: Collection<Stored<BankLink>>,
  orgId: string,
  transactionIds: ReadonlySet<string>,
  entryIds: ReadonlySet<string>,
  budget: number,
): Promise<{ ofTransactions: StoredLink[]; toEntries: StoredLink[] } | null> {
  const ofTransactions: StoredLink[] = [];
  const toEntries: StoredLink[] = [];
  let read = 0;
  // why the limit: the budget must bound what FerretDB reads and converts,
  // not only what this loop looks at (a closed cursor alone did not: its
  // answers had already been sent).
  for await (const doc of links.find(
    { org_id: orgId },
    { limit: budget + 1, batchSize: Math.min(ORG_PASS_BATCH, budget + 1) },
  )) {
    read += 1;
    if (read > budget) return null;
    if (transactionIds.has(doc.bank_transaction_id)) ofTransactions.push(doc);
    if (entryIds.has(doc.ledger_entry_id)) toEntries.push(doc);
  }
  return { ofTransactions, toEntries };
}
