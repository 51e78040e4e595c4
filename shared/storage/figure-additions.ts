// Kept figures by addition (docs/reference/book-reads.md "Kept figures"): an
// apply journal that only inserts bank transactions (a statement import) adds
// what its transactions add (shared/domain/figure-additions.ts) to the
// figures they move, instead of computing those figures again from every
// record they cover (book-figures.ts `refreshFigures`: at 100k transactions,
// most of the account).
//
// Sound only on figures that did not count the new transactions, and that no
// one wrote between the read and the write:
// * the figures are read (`readBeforeInserts`) by the job that wrote the
//   journal, before its first insert, from an organisation whose figures are
//   built; only fresh ones (`stale: '0'`) are added to;
// * each write is guarded by the revision it read (`rev`, figure-docs.ts
//   `newRev`): a bump, a computation or a build since makes it nothing;
// * a row is added to only after its counterparty's master was: a master
//   fresh at its seq has that computation's rows written (book-figures.ts
//   writes rows first), and a writer that bumps it later reads the new
//   transactions, so its rows override the addition;
// * a figure absent when read (a new day, a counterparty's first row or
//   first transaction) is inserted; an insert that meets a document, or any
//   insert while a build may have begun (the organisation's document moved),
//   leaves it to be computed.
// Whatever was not added is returned, and the caller computes it as any
// other writer does.
import type { Db, Document } from 'mongodb';
import type { LatestName } from '../domain/book-reads.js';
import type { AccountCounterpartyFigures } from '../domain/book-figures.js';
import { addSums, laterName, transactionAdditions, type AddedTransaction } from '../domain/figure-additions.js';
import type { JournalWrite } from '../domain/apply-journal.js';
import type { PostingAccount } from '../domain/ledger-postings.js';
import { addDayRows, type DayRow } from '../domain/trial-balance-days.js';
import type { TouchedFigures } from './book-figures.js';
import { collections } from './collections.js';
import { dayFigureId, dayMaster } from './day-totals.js';
import {
  accountFields,
  accountFigureId,
  BOOK_FIGURES,
  counterpartyFields,
  counterpartyFigureId,
  counterpartyMaster,
  insertFigures,
  isBuilt,
  newRev,
  orgFigureId,
  rowFields,
  rowFigureId,
  type FigureDoc,
} from './figure-docs.js';
import { storeAdapter } from './store-adapter.js';

/** The figure documents a journal's transactions move, as they were before its first insert, by `_id`. */
export interface FiguresBefore {
  org: { seq: number };
  docs: Map<string, Document>;
}

/** The journal's writes as transactions, when it only inserts bank transactions; else null. */
function insertedTransactions(writes: readonly JournalWrite[]): AddedTransaction[] | null {
  if (writes.length === 0) return null;
  const out: AddedTransaction[] = [];
  for (const w of writes) {
    if (w.action !== 'insert' || w.collection !== 'bank_transactions') return null;
    const d = w.doc;
    out.push({
      id: w.id,
      bank_account_id: String(d.bank_account_id),
      booking_date: String(d.booking_date),
      amount_minor: Number(d.amount_minor),
      currency: String(d.currency),
      status: d.status as AddedTransaction['status'],
      counterparty_id: typeof d.counterparty_id === 'string' ? d.counterparty_id : null,
      counterparty_name: d.counterparty_name as string,
    });
  }
  return out;
}

/**
 * Before a journal's first insert: the figure documents its transactions
 * will move, as they are; null when the journal does more than insert bank
 * transactions or the organisation's figures are not built (its figures are
 * then computed, book-figures.ts).
 */
export async function readBeforeInserts(
  db: Db,
  orgId: string,
  writes: readonly JournalWrite[],
): Promise<FiguresBefore | null> {
  const transactions = insertedTransactions(writes);
  if (transactions === null) return null;
  const ids = new Set([orgFigureId(orgId)]);
  for (const t of transactions) {
    ids.add(accountFigureId(orgId, t.bank_account_id));
    ids.add(dayFigureId(orgId, t.booking_date));
    if (t.counterparty_id === null) continue;
    ids.add(counterpartyFigureId(orgId, t.counterparty_id));
    ids.add(rowFigureId(orgId, t.bank_account_id, t.counterparty_id));
  }
  const docs = new Map(
    (await (await storeAdapter(db)).findByIds(BOOK_FIGURES, [...ids], { owner: orgId })).map((d) => [String(d._id), d]),
  );
  const org = docs.get(orgFigureId(orgId));
  if (!isBuilt(org)) return null;
  return { org: { seq: Number(org?.seq ?? 0) }, docs };
}

/** A kept master an addition may go onto: fresh, and with the revision a guard needs. */
const addable = (d: Document | undefined): d is Document & { rev: number } =>
  d !== undefined && d.stale === '0' && typeof d.rev === 'number';
/** A kept row (rows are never stale: their master is) with the revision a guard needs. */
const addableRow = (d: Document): boolean => typeof d.rev === 'number';

const named = (d: Document): LatestName | null =>
  typeof d.name_key === 'string' ? { key: d.name_key, name: (d.name as string | null | undefined) ?? null } : null;

/** One figure's addition: onto a kept document at its revision, or a new document; `leave` when not made. */
type Write = { id: string; rev: number; leave: () => void } & ({ set: Document } | { insert: FigureDoc });

/**
 * Add the journal's transactions (its writes all made, by this job, since
 * `before` was read) to the figures; what it could not add, to be computed.
 */
export async function addInsertedTransactions(
  db: Db,
  orgId: string,
  before: FiguresBefore,
  writes: readonly JournalWrite[],
): Promise<TouchedFigures> {
  const transactions = insertedTransactions(writes) ?? [];
  const left = { counterparties: new Set<string>(), accounts: new Set<string>(), days: new Set<string>() };
  const port = await storeAdapter(db);
  const accounts = (
    await port.findByIds(
      collections(db).bankAccounts.collectionName,
      [...new Set(transactions.map((t) => t.bank_account_id))],
      { owner: orgId, fields: ['currency', 'ledger_account', 'opening_balance_minor'] },
    )
  ).map((d): PostingAccount => ({
    id: String(d._id),
    currency: String(d.currency),
    ledger_account: String(d.ledger_account),
    opening_balance_minor: Number(d.opening_balance_minor ?? 0),
  }));
  const added = transactionAdditions(transactions, accounts);
  const doc = (id: string) => before.docs.get(id);
  const inserted = new Map<string, () => void>();

  const masters: Write[] = [];
  for (const [account, sums] of added.accounts) {
    const id = accountFigureId(orgId, account);
    const kept = doc(id);
    if (!addable(kept) || typeof kept.amount_sum_minor !== 'number' || !accounts.some((a) => a.id === account)) {
      left.accounts.add(account);
      continue;
    }
    const total = addSums(
      {
        bank_account_id: account,
        amount_sum_minor: kept.amount_sum_minor,
        unreconciled_count: Number(kept.unreconciled_count ?? 0),
        unreconciled_sum_minor: Number(kept.unreconciled_sum_minor ?? 0),
      },
      sums,
    );
    masters.push({ id, rev: newRev(), set: accountFields(total), leave: () => left.accounts.add(account) });
  }
  for (const [date, rows] of added.days) {
    const id = dayFigureId(orgId, date);
    const kept = doc(id);
    const leave = () => left.days.add(date);
    if (kept === undefined) {
      masters.push({ id, rev: newRev(), insert: { ...dayMaster(orgId, date), rows, stale: '0', seq: 0 }, leave });
      inserted.set(id, leave);
    } else if (addable(kept) && Array.isArray(kept.rows))
      masters.push({ id, rev: newRev(), set: { rows: addDayRows(kept.rows as DayRow[], rows) }, leave });
    else leave();
  }
  for (const [cp, latest] of added.counterparties) {
    const id = counterpartyFigureId(orgId, cp);
    const kept = doc(id);
    const leave = () => left.counterparties.add(cp);
    if (kept === undefined) {
      masters.push({ id, rev: newRev(), insert: counterpartyDoc(orgId, cp, latest), leave });
      inserted.set(id, leave);
    } else if (addable(kept) && (named(kept) !== null || kept.name_key === null)) {
      const name = laterName(named(kept), latest);
      masters.push({ id, rev: newRev(), set: { name: name.name, name_key: name.key }, leave });
    } else leave();
  }
  const mastersMade = await write(db, orgId, masters, before.docs);
  for (const w of masters) if (!mastersMade.has(w.id)) w.leave();

  // Each row after its counterparty's master (see the top of this file).
  const rows: Write[] = [];
  for (const r of added.rows.values()) {
    if (!mastersMade.has(counterpartyFigureId(orgId, r.counterparty_id))) continue;
    const id = rowFigureId(orgId, r.bank_account_id, r.counterparty_id);
    const kept = doc(id);
    const leave = () => left.counterparties.add(r.counterparty_id);
    if (kept === undefined) {
      rows.push({
        id,
        rev: newRev(),
        leave,
        insert: {
          _id: id,
          org_id: orgId,
          basis: Number(doc(counterpartyFigureId(orgId, r.counterparty_id))?.seq ?? 0),
          ...rowFields(
            rowFigures(r.bank_account_id, r.counterparty_id, r.transactions, r.unlinked_bank_minor, r.latest),
          ),
        },
      });
      inserted.set(id, leave);
      continue;
    }
    const keptName = named(kept);
    const count = Number(kept.transactions ?? 0);
    if (!addableRow(kept) || (keptName === null && count > 0)) {
      leave();
      continue;
    }
    rows.push({
      id,
      rev: newRev(),
      leave,
      set: rowFields(
        rowFigures(
          r.bank_account_id,
          r.counterparty_id,
          count + r.transactions,
          Number(kept.unlinked_bank_minor ?? 0) + r.unlinked_bank_minor,
          laterName(keptName, r.latest),
        ),
      ),
    });
  }
  const rowsMade = await write(db, orgId, rows, before.docs);
  for (const w of rows) if (!rowsMade.has(w.id)) w.leave();

  // A build that began after the read deletes what it finds and is refused where a document is there: an
  // inserted addition could stand for the whole day or row. Anything inserted then is computed.
  if (inserted.size > 0) {
    const org = await port.findOwnedById(BOOK_FIGURES, orgId, orgFigureId(orgId));
    if (!isBuilt(org) || Number(org?.seq ?? 0) !== before.org.seq) for (const mark of inserted.values()) mark();
  }
  return left;
}

/** Make the writes, each guarded by the revision read or inserted only where absent; the ids of those made. */
async function write(
  db: Db,
  orgId: string,
  writes: readonly Write[],
  read: ReadonlyMap<string, Document>,
): Promise<Set<string>> {
  if (writes.length === 0) return new Set();
  const port = await storeAdapter(db);
  const updates = writes.filter((w): w is Extract<Write, { set: Document }> => 'set' in w);
  const inserts = writes.filter((w): w is Extract<Write, { insert: FigureDoc }> => 'insert' in w);
  const [made] = await Promise.all([
    port.writeByIds(
      BOOK_FIGURES,
      orgId,
      updates.map((w) => ({
        id: w.id,
        guard: { field: 'rev', value: Number(read.get(w.id)?.rev) },
        set: { ...w.set, rev: w.rev },
      })),
    ),
    insertFigures(
      db,
      inserts.map((w) => ({ ...w.insert, rev: w.rev })),
    ),
  ]);
  if (inserts.length === 0 && made === updates.length) return new Set(writes.map((w) => w.id));
  // Which: a document holds the revision its write set only if that write made it.
  const revs = new Map(
    (
      await port.findByIds(
        BOOK_FIGURES,
        writes.map((w) => w.id),
        { owner: orgId, fields: ['rev'] },
      )
    ).map((d) => [String(d._id), d.rev]),
  );
  return new Set(writes.filter((w) => revs.get(w.id) === w.rev).map((w) => w.id));
}

/** A row's figures: the account's transactions with the counterparty, their unlinked amount, the latest name. */
function rowFigures(
  account: string,
  cp: string,
  transactions: number,
  unlinked: number,
  latest: LatestName | null,
): AccountCounterpartyFigures {
  return {
    bank_account_id: account,
    counterparty_id: cp,
    transactions,
    unlinked_bank_minor: unlinked,
    name: latest?.name ?? null,
    name_key: latest?.key ?? null,
  };
}

/** A counterparty first named by the new transactions: it had no master, so no posted entry of its is open. */
function counterpartyDoc(orgId: string, cp: string, latest: LatestName): FigureDoc {
  return {
    ...counterpartyMaster(orgId, cp),
    ...counterpartyFields({ counterparty_id: cp, name: latest.name, name_key: latest.key }),
    stale: '0',
    seq: 0,
  };
}
