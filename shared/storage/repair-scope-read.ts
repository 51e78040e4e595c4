// The link repair's scope, read by the scope alone (docs/indexes.md
// "Scope-sized reads"): every read is a top-level equality on a selective,
// indexed field, so its cost follows the scope, never the organisation.
//
// why not findWhereIn: on FerretDB it turns more than EQUALITY_QUERY_MAX ids
// into one `$in` (FerretDB pushes down only the org_id equality and filters
// the whole organisation's documents in Go) and more than IN_CHUNK_SIZE into
// a pass over the organisation. A counterparty with a few hundred entries then
// made a repair read every link of the org. With the GIN expression indexes
// (shared/storage/postgres-gin-indexes.ts) an equality read by id costs about
// a millisecond whatever the org's size, so here every list is read one
// equality per id, a few at a time.
import type { Collection, Db, Document, Filter, WithId } from 'mongodb';
import type { BankLink, BankTransaction, LedgerEntry } from '../domain/books.js';
import { collections } from './collections.js';
import { fromStored } from './documents.js';
import { isFerretDb, readInChunks } from './where-in.js';

/** Equality reads in flight at once per list. */
const CONCURRENCY = 16;

export interface RepairScope {
  transactions: BankTransaction[];
  entries: LedgerEntry[];
  links: BankLink[];
}

/**
 * What the repair rule needs to see (its LinkRepairInput): every transaction
 * of the account with the counterparty (any date: the date decides the
 * scope), every entry of the counterparty, the links of those transactions and
 * the links to those entries (from any transaction), and every other entry
 * such a link points to.
 */
export async function loadRepairScope(db: Db, orgId: string, accountId: string, counterpartyId: string): Promise<RepairScope> {
  const c = collections(db);
  const [transactionDocs, entryDocs] = await Promise.all([
    c.bankTransactions.find({ org_id: orgId, bank_account_id: accountId, counterparty_id: counterpartyId }).toArray(),
    c.ledgerEntries.find({ org_id: orgId, counterparty_id: counterpartyId }).toArray(),
  ]);
  const transactions = transactionDocs.map((d) => fromStored<BankTransaction>(d));
  const entries = entryDocs.map((d) => fromStored<LedgerEntry>(d));
  const [linksOfTransactions, linksToEntries] = await Promise.all([
    findEachEqual(db, c.bankLinks, orgId, 'bank_transaction_id', transactions.map((t) => t.id)),
    findEachEqual(db, c.bankLinks, orgId, 'ledger_entry_id', entries.map((e) => e.id)),
  ]);
  const links = new Map<string, BankLink>();
  for (const doc of [...linksOfTransactions, ...linksToEntries]) links.set(doc._id, fromStored<BankLink>(doc));

  // Links of these transactions to entries of other counterparties: the plan
  // must see those entries to release the links.
  const loaded = new Set(entries.map((e) => e.id));
  const missing = [...new Set(linksOfTransactions.map((l) => l.ledger_entry_id).filter((id) => !loaded.has(id)))];
  const others = (await findEachEqual(db, c.ledgerEntries, orgId, '_id', missing)).map((d) => fromStored<LedgerEntry>(d));
  return { transactions, entries: [...entries, ...others], links: [...links.values()] };
}

/**
 * The org's documents whose `field` is one of `values`. FerretDB: one
 * equality read per value (the only filter it pushes down to an index).
 * MongoDB: `$in` in chunks, which its indexes serve.
 */
async function findEachEqual<D extends Document & { org_id: string }>(
  db: Db, collection: Collection<D>, orgId: string, field: string, values: readonly string[],
): Promise<WithId<D>[]> {
  if (values.length === 0) return [];
  const where = (condition: unknown) => collection.find({ org_id: orgId, [field]: condition } as Filter<D>).toArray();
  if (!(await isFerretDb(db))) return readInChunks(values, (chunk) => where({ $in: chunk }));
  const out: WithId<D>[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < values.length) {
      const value = values[next]!;
      next += 1;
      for (const doc of await where(value)) out.push(doc);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, values.length) }, lane));
  return out;
}
