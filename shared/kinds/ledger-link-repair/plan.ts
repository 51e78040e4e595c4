// FIFO ledger ↔ bank link repair (docs/reference/http-api.md §8): set, frozen links, the FIFO
// target, the diff into move/link/unlink actions, blockers, and the plan a
// bookkeeper approves. Pure: the worker loads the books, this decides. The
// same books give the same plan whatever the order of the input arrays.
import type {
  BankAccount,
  BankLink,
  BankTransaction,
  IsoDate,
  LedgerEntry,
  Org,
  Precondition,
} from '../../domain/books.js';
import { compareIds, isReversalEntry, openAmountMinor } from '../../domain/books.js';
import { allocateFifoAt, type FifoPairs } from '../../domain/fifo-allocation.js';
import { DateSlots, orderByDateRank } from '../../domain/date-order.js';
import { positionsById } from '../../domain/id-positions.js';
import { refused, type Decision } from '../../domain/decision.js';
import { repairPlanHash } from './hash.js';
import type { LinkRepairPlan, LinkRepairSummary, RepairAction } from './plan-shape.js';
import type { PlanLocks } from '../../domain/pending-gate.js';

/**
 * The books one repair reads. The caller passes at least: the account's
 * transactions with this counterparty, the counterparty's entries plus every
 * entry a passed link points to, and every link of those transactions plus
 * every link pointing to the counterparty's entries (from any transaction).
 * Set membership is decided here, from the fields; extra records are ignored.
 */
export interface LinkRepairInput {
  account: BankAccount;
  counterparty_id: string;
  as_of: IsoDate;
  settlement_accounts: readonly string[];
  transactions: readonly BankTransaction[];
  entries: readonly LedgerEntry[];
  links: readonly BankLink[];
}

export type {
  LinkRepairPlan,
  LinkRepairSummary,
  RepairAction,
  RepairLinkAction,
  RepairMoveAction,
  RepairUnlinkAction,
} from './plan-shape.js';

/** Blocker codes, in the order they are reported. */
export const LINK_REPAIR_BLOCKER_CODES = [
  'currency_mismatch',
  'frozen_link_to_reversed_entry',
  'frozen_link_to_other_counterparty',
  'frozen_over_allocation',
] as const;

export type LinkRepairBlockerCode = (typeof LINK_REPAIR_BLOCKER_CODES)[number];

export interface LinkRepairBlocker {
  code: LinkRepairBlockerCode;
  /** Sorted by id. */
  ids: string[];
}

export type LinkRepairOutcome =
  | { outcome: 'blocked'; blockers: LinkRepairBlocker[]; plan: null; plan_hash: null }
  | { outcome: 'noop'; blockers: LinkRepairBlocker[]; plan: LinkRepairPlan; plan_hash: string }
  | {
      outcome: 'staged';
      blockers: LinkRepairBlocker[];
      plan: LinkRepairPlan;
      plan_hash: string;
      locks: PlanLocks;
      /** Sorted by collection, then id; the caller adds the org's version. */
      preconditions: Precondition[];
    };

export { repairPlanHash };

export function repairSubjectKey(bankAccountId: string, counterpartyId: string): string {
  return `repair:${bankAccountId}:${counterpartyId}`;
}

/**
 * The most transactions a repair's record set may hold (the account's with
 * the counterparty): a larger one is refused before its plan is made
 * (`repair_too_large`, docs/reference/http-api.md §6.7 "Largest calls"). The
 * largest size measured staged, approved and applied (docs/design/staged-lifecycle.md "How an operation is stored").
 */
export const REPAIR_MAX_TRANSACTIONS = 15_000;

/** Plan the repair of one account + counterparty (docs/reference/http-api.md §8 steps 1–4). */
export function planLinkRepair(input: LinkRepairInput): LinkRepairOutcome {
  const set = readRecordSet(input);
  const blockers = findBlockers(set, input.account.currency, input.counterparty_id);
  if (blockers.length > 0) return { outcome: 'blocked', blockers, plan: null, plan_hash: null };

  const walk = walkFifo(set);
  // By position, 1 when an action touches the record. why positions: read
  // back in position order, which the store's reads give in id order, the
  // locks' ids need no sort.
  const touched = new Uint8Array(set.entries.length);
  const touchedTransactions = new Uint8Array(set.transactions.length);
  const actions: RepairAction[] = [];
  for (let w = 0; w < set.walked.length; w += 1) {
    const before = actions.length;
    diffTransaction(set, walk, w, actions, touched);
    if (actions.length > before) touchedTransactions[set.walked[w]!] = 1;
  }

  const plan: LinkRepairPlan = {
    bank_account_id: input.account.id,
    counterparty_id: input.counterparty_id,
    as_of: input.as_of,
    actions,
    summary: summarise(actions, walk.unallocated, walk.uncovered),
  };
  const plan_hash = repairPlanHash(plan);
  if (actions.length === 0) return { outcome: 'noop', blockers: [], plan, plan_hash };
  const entryIds = marked(set.entries, touched).map((e) => e.id);
  const transactionIds = marked(set.transactions, touchedTransactions).map((t) => t.id);
  return {
    outcome: 'staged',
    blockers: [],
    plan,
    plan_hash,
    locks: {
      subject_key: repairSubjectKey(input.account.id, input.counterparty_id),
      entry_ids: set.entriesById ? entryIds : sortIds(entryIds),
      transaction_ids: set.transactionsById ? transactionIds : sortIds(transactionIds),
    },
    preconditions: set.preconditions,
  };
}

/**
 * The repair as a staging decision. Pending holders are not checked here: a
 * repair's rules have no order to keep around them, so the commit step meets
 * any holder when it takes the locks. Applying the plan re-checks the org's
 * version too.
 */
export function decideLinkRepair(input: LinkRepairInput, org: Pick<Org, 'id' | 'version'>): Decision<LinkRepairPlan> {
  if (input.transactions.length > REPAIR_MAX_TRANSACTIONS)
    return refused('repair_too_large', {
      bank_account_id: input.account.id,
      counterparty_id: input.counterparty_id,
      transactions: input.transactions.length,
      limit: REPAIR_MAX_TRANSACTIONS,
    });
  const result = planLinkRepair(input);
  switch (result.outcome) {
    case 'blocked':
      return { outcome: 'blocked', blockers: result.blockers, warnings: [] };
    case 'noop':
      return { outcome: 'noop', plan: result.plan, plan_hash: result.plan_hash, warnings: [] };
    case 'staged':
      return {
        outcome: 'staged',
        plan: result.plan,
        plan_hash: result.plan_hash,
        locks: result.locks,
        preconditions: [{ collection: 'orgs', id: org.id, version: org.version }, ...result.preconditions],
        warnings: [],
      };
  }
}

// ---------------------------------------------------------------------------
// Step 0: set. Which records take part, and how.
//
// why: a 100k-transaction repair spent most of its time building id maps and
// one slot object per record. Each id is now looked up once, when the input
// is read (a transaction's, an entry's position); from there on the plan works
// with positions and parallel arrays indexed by them, and the output's
// objects are the only ones built per record.

interface RecordSet {
  /** Every passed transaction once (the fresher of duplicates), in input order: "positions". */
  transactions: readonly BankTransaction[];
  /** Positions are in id order (the store's reads), so ids read in position order need no sort. */
  transactionsById: boolean;
  /** Positions of in-set unreconciled transactions, in FIFO order (booking_date, id). */
  walked: Int32Array;
  /** Every passed entry once (the fresher of duplicates), in input order: "positions". */
  entries: readonly LedgerEntry[];
  entriesById: boolean;
  /** Positions of in-set entries in FIFO order (entry_date, id): index = rank. */
  ranked: Int32Array;
  /** By entry position: its rank, -1 when out of set. */
  rank: Int32Array;
  /** By entry position: signed open amount on the settlement accounts (in the set: never 0). */
  open: Float64Array;
  /** By entry position: Σ frozen links pointing to it. */
  frozen: Float64Array;
  /** The links that matter, once each, in input order. */
  links: BankLink[];
  /** By link (index into `links`): the position of its entry (always passed for a link that matters). */
  linkEntry: Int32Array;
  /** By link: the next changeable link of the same transaction, -1 at the end. */
  linkNext: Int32Array;
  /** By transaction position: its first changeable link, -1 if none. */
  firstLink: Int32Array;
  /** Frozen links (indexes into `links`) of reconciled in-set transactions (checked for blockers). */
  reconciledLinks: number[];
  /** Ids of in-set transactions in another currency than the account's. */
  foreignTransactions: string[];
  preconditions: Precondition[];
}

// why one function per pass: each pass runs once per plan over up to 100k
// records, so V8 compiles it while its loop runs (on-stack replacement). In
// one long function, that code went on into the later passes, compiled
// before they had ever run, and was thrown away there on every plan.
function readRecordSet(input: LinkRepairInput): RecordSet {
  const { account } = input;
  const { records: transactions, byId: transactionsById } = uniqueRecords(input.transactions);
  const { records: entries, byId: entriesById } = uniqueRecords(input.entries);
  const { records: passedLinks, byId: linksById } = uniqueRecords(input.links);
  const setTransactions = readTransactions(input, transactions, transactionsById);
  const setEntries = readEntries(input, entries, entriesById);
  const setLinks = readLinks(
    transactions,
    transactionsById,
    setTransactions.inSet,
    entries,
    entriesById,
    setEntries,
    passedLinks,
  );

  const readEntryList = marked(entries, setEntries.read);

  // Collections in code-unit order, each one's records by id.
  // why one array of its final size: at 100k it holds about 300k
  // preconditions, and growing it by push copied it into ever larger fresh
  // arrays, each a run of new pages for the kernel to fault in (growing
  // arrays took about two fifths of a 100k plan's page faults).
  const preconditions = new Array<Precondition>(
    1 + setLinks.links.length + setTransactions.candidates.length + readEntryList.length,
  );
  preconditions[0] = { collection: 'bank_accounts', id: account.id, version: account.version };
  // why the flags: each list keeps its input's order, so one taken from
  // records in id order is in id order too and need not be checked again.
  let at = setPreconditions(preconditions, 1, 'bank_links', setLinks.links, linksById);
  at = setPreconditions(preconditions, at, 'bank_transactions', setTransactions.candidates, transactionsById);
  setPreconditions(preconditions, at, 'ledger_entries', readEntryList, entriesById);

  return {
    transactions,
    transactionsById,
    walked: setTransactions.walked,
    entries,
    entriesById,
    ranked: setEntries.ranked,
    rank: setEntries.rank,
    open: setEntries.open,
    frozen: setLinks.frozen,
    links: setLinks.links,
    linkEntry: setLinks.linkEntry,
    linkNext: setLinks.linkNext,
    firstLink: setLinks.firstLink,
    reconciledLinks: setLinks.reconciledLinks,
    foreignTransactions: setTransactions.foreign,
    preconditions,
  };
}

/** The records whose position is marked 1, in position order. */
function marked<T>(records: readonly T[], marks: Uint8Array): T[] {
  // why counted first: an array of its final size is allocated once (the preconditions above say why).
  let count = 0;
  for (let i = 0; i < marks.length; i += 1) count += marks[i]!;
  const out = new Array<T>(count);
  let at = 0;
  for (let i = 0; i < records.length; i += 1) if (marks[i] === 1) out[at++] = records[i]!;
  return out;
}

interface SetTransactions {
  /** This account and counterparty, any date: their booking_date decides membership, so all are read (and are preconditions). */
  candidates: BankTransaction[];
  /** By position: 1 when in the set (its links are then resolved to it). */
  inSet: Uint8Array;
  walked: Int32Array;
  foreign: string[];
}

function readTransactions(
  input: LinkRepairInput,
  transactions: readonly BankTransaction[],
  byId: boolean,
): SetTransactions {
  const candidates: BankTransaction[] = [];
  const inSet = new Uint8Array(transactions.length);
  // why typed arrays sized for every record: 100k pushes each into growing
  // arrays were a measurable part of reading the set.
  const walkedAt = new Int32Array(transactions.length);
  const walkedDates = new Int32Array(transactions.length);
  // Booking dates by slot (date-order.ts), each compared with as_of once.
  const bookingDates = new DateSlots(input.as_of);
  const foreign: string[] = [];
  const walkedCount = passTransactions({
    input,
    transactions,
    candidates,
    inSet,
    walkedAt,
    walkedDates,
    bookingDates,
    foreign,
  });
  const walked = walkedAt.subarray(0, walkedCount);
  if (byId) orderByDateRank(walked, walkedDates, bookingDates.ranks());
  else sortPositions(walked, (a, b) => byBookingDateThenId(transactions[a]!, transactions[b]!));
  return { candidates, inSet, walked, foreign };
}

/** What readTransactions' pass reads and fills. */
interface TransactionPass {
  input: LinkRepairInput;
  transactions: readonly BankTransaction[];
  candidates: BankTransaction[];
  inSet: Uint8Array;
  walkedAt: Int32Array;
  walkedDates: Int32Array;
  bookingDates: DateSlots;
  foreign: string[];
}

/**
 * readTransactions' pass over the records; returns how many are walked.
 * why a count and not a field of the pass: the loop's compiled code goes on
 * to what follows it, and a store there it had never run was thrown away on
 * every plan.
 */
function passTransactions(pass: TransactionPass): number {
  const { input, transactions, candidates, inSet, walkedAt, walkedDates, bookingDates, foreign } = pass;
  const { account, counterparty_id: counterpartyId } = input;
  let walkedCount = 0;
  for (let i = 0; i < transactions.length; i += 1) {
    const t = transactions[i]!;
    if (t.bank_account_id !== account.id || t.counterparty_id !== counterpartyId) continue;
    candidates.push(t);
    const date = bookingDates.slot(t.booking_date);
    if (bookingDates.isAfterCutoff(date)) continue;
    if (!Number.isSafeInteger(t.amount_minor)) throw new RangeError(`amount_minor of ${t.id} must be a safe integer`);
    if (t.currency !== account.currency) foreign.push(t.id);
    if (t.status !== 'reconciled') {
      walkedAt[walkedCount] = i;
      walkedDates[walkedCount] = date;
      walkedCount += 1;
    }
    inSet[i] = 1;
  }
  return walkedCount;
}

interface SetEntries {
  /** By position: 1 when the entry is read (a precondition): the counterparty's, and every one a link that matters points to. */
  read: Uint8Array;
  ranked: Int32Array;
  rank: Int32Array;
  open: Float64Array;
}

function readEntries(input: LinkRepairInput, entries: readonly LedgerEntry[], byId: boolean): SetEntries {
  const read = new Uint8Array(entries.length);
  const rankedAt = new Int32Array(entries.length);
  const rankedDates = new Int32Array(entries.length);
  const entryDates = new DateSlots(input.as_of);
  const open = new Float64Array(entries.length);
  const rankedCount = passEntries({ input, entries, read, rankedAt, rankedDates, entryDates, open });
  const ranked = rankedAt.subarray(0, rankedCount);
  if (byId) orderByDateRank(ranked, rankedDates, entryDates.ranks());
  else sortPositions(ranked, (a, b) => byEntryDateThenId(entries[a]!, entries[b]!));
  return { read, ranked, rank: rankByPosition(ranked, entries.length), open };
}

/** By position: its index in `ranked`, -1 when absent. */
function rankByPosition(ranked: Int32Array, positions: number): Int32Array {
  const rank = new Int32Array(positions).fill(-1);
  for (let r = 0; r < ranked.length; r += 1) rank[ranked[r]!] = r;
  return rank;
}

/** What readEntries' pass reads and fills. */
interface EntryPass {
  input: LinkRepairInput;
  entries: readonly LedgerEntry[];
  read: Uint8Array;
  rankedAt: Int32Array;
  rankedDates: Int32Array;
  entryDates: DateSlots;
  open: Float64Array;
}

/** readEntries' pass over the records; returns how many are ranked (in set), as passTransactions does. */
function passEntries(pass: EntryPass): number {
  const { input, entries, read, rankedAt, rankedDates, entryDates, open } = pass;
  const { counterparty_id: counterpartyId, settlement_accounts: settlementAccounts } = input;
  let rankedCount = 0;
  for (let i = 0; i < entries.length; i += 1) {
    const entry = entries[i]!;
    if (entry.counterparty_id !== counterpartyId) continue;
    read[i] = 1;
    if (entry.status !== 'posted' || isReversed(entry) || isReversalEntry(entry)) continue;
    const date = entryDates.slot(entry.entry_date);
    if (entryDates.isAfterCutoff(date)) continue;
    const amount = openAmountMinor(entry, settlementAccounts);
    if (!Number.isSafeInteger(amount)) throw new RangeError(`open amount of ${entry.id} must be a safe integer`);
    if (amount !== 0) {
      open[i] = amount;
      rankedAt[rankedCount] = i;
      rankedDates[rankedCount] = date;
      rankedCount += 1;
    }
  }
  return rankedCount;
}

interface SetLinks {
  links: BankLink[];
  linkEntry: Int32Array;
  linkNext: Int32Array;
  firstLink: Int32Array;
  reconciledLinks: number[];
  frozen: Float64Array;
}

/**
 * Links that matter: every link of an in-set transaction, and every link
 * pointing to an in-set entry (from any transaction). Others are ignored.
 * Marks the entries they point to as read.
 */
function readLinks(
  transactions: readonly BankTransaction[],
  transactionsById: boolean,
  inSet: Uint8Array,
  entries: readonly LedgerEntry[],
  entriesById: boolean,
  setEntries: SetEntries,
  passedLinks: readonly BankLink[],
): SetLinks {
  const pass: LinkPass = {
    transactions,
    inSet,
    read: setEntries.read,
    rank: setEntries.rank,
    passedLinks,
    // Each link's transaction and entry by position, -1 when not passed.
    transactionAt: positionsById(transactions, transactionsById, passedLinks, 'bank_transaction_id'),
    entryAt: positionsById(entries, entriesById, passedLinks, 'ledger_entry_id'),
    links: [],
    linkEntries: [],
    next: [],
    reconciledLinks: [],
    frozen: new Float64Array(entries.length),
    firstLink: new Int32Array(transactions.length).fill(-1),
  };
  passLinks(pass);
  const { links, linkEntries, next, firstLink, reconciledLinks, frozen } = pass;
  return {
    links,
    linkEntry: Int32Array.from(linkEntries),
    linkNext: Int32Array.from(next),
    firstLink,
    reconciledLinks,
    frozen,
  };
}

/** What readLinks' pass reads (above) and fills (below). */
interface LinkPass {
  transactions: readonly BankTransaction[];
  inSet: Uint8Array;
  read: Uint8Array;
  rank: Int32Array;
  passedLinks: readonly BankLink[];
  transactionAt: Int32Array;
  entryAt: Int32Array;
  links: BankLink[];
  linkEntries: number[];
  next: number[];
  reconciledLinks: number[];
  frozen: Float64Array;
  firstLink: Int32Array;
}

/** readLinks' pass over the passed links. */
function passLinks(pass: LinkPass): void {
  const {
    transactions,
    inSet,
    read,
    rank,
    passedLinks,
    transactionAt,
    entryAt,
    links,
    linkEntries,
    next,
    reconciledLinks,
    frozen,
    firstLink,
  } = pass;
  const lastLink = new Int32Array(transactions.length);
  for (let p = 0; p < passedLinks.length; p += 1) {
    const link = passedLinks[p]!;
    const t = transactionAt[p]!;
    const txn = t >= 0 && inSet[t] === 1 ? transactions[t] : undefined;
    const e = entryAt[p]!;
    const entryRank = e < 0 ? -1 : rank[e]!;
    if (!txn && entryRank < 0) continue;
    const at = links.length;
    links.push(link);
    linkEntries.push(e);
    next.push(-1);
    if (!Number.isSafeInteger(link.amount_minor) || link.amount_minor <= 0) {
      throw new RangeError(`amount_minor of bank link ${link.id} must be a positive safe integer`);
    }
    if (txn && e < 0) {
      // why: without the entry we cannot tell whether the link is in the set;
      // guessing would either release a valid link or keep a wrong one.
      throw new Error(`bank link ${link.id} points to ledger entry ${link.ledger_entry_id}, which was not provided`);
    }
    read[e] = 1;
    if (txn && txn.status !== 'reconciled') {
      if (firstLink[t] === -1) firstLink[t] = at;
      else next[lastLink[t]!] = at;
      lastLink[t] = at;
      continue;
    }
    // Frozen: a reconciled in-set transaction, or a transaction outside the set.
    if (txn) reconciledLinks.push(at);
    if (entryRank >= 0) frozen[e] = frozen[e]! + link.amount_minor;
  }
}

// why: an entry that names the entry reversing it is reversed even if its
// status was not updated; the reversal's plan.ts treats it the same way.
function isReversed(entry: LedgerEntry): boolean {
  return entry.status === 'reversed' || Boolean(entry.reversed_by);
}

/**
 * Set `records`' preconditions in `into` from `at`, in id order; returns the
 * index after them. `records` hold each id once; `byId` when they are known
 * to be in id order.
 */
function setPreconditions(
  into: Precondition[],
  at: number,
  collection: Precondition['collection'],
  records: readonly { id: string; version: number }[],
  byId: boolean,
): number {
  const ordered = byId || isSortedById(records) ? records : [...records].sort((a, b) => compareIds(a.id, b.id));
  let i = at;
  for (const r of ordered) into[i++] = { collection, id: r.id, version: r.version };
  return i;
}

// ---------------------------------------------------------------------------
// Step 4 (checked first): blockers, in contract order, ids sorted.

function findBlockers(set: RecordSet, currency: string, counterpartyId: string): LinkRepairBlocker[] {
  const blockers: LinkRepairBlocker[] = [];
  const add = (code: LinkRepairBlockerCode, ids: string[]): void => {
    if (ids.length > 0) blockers.push({ code, ids: sortIds([...new Set(ids)]) });
  };
  const { entries, ranked } = set;

  // why: every in-set transaction counts, reconciled ones too (the rule
  // says "a transaction in the set"): their frozen links consume capacity, and
  // an amount in another currency cannot be set against the account's.
  const foreign = [...set.foreignTransactions];
  for (const e of ranked) if (entries[e]!.currency !== currency) foreign.push(entries[e]!.id);
  add('currency_mismatch', foreign);
  // why: a link may be both (a reversed entry of another counterparty); it
  // is then listed under both codes, since each is a separate fix.
  const reversed: string[] = [];
  const otherCounterparty: string[] = [];
  for (const l of set.reconciledLinks) {
    const entry = entries[set.linkEntry[l]!]!;
    if (isReversed(entry)) reversed.push(set.links[l]!.id);
    if (entry.counterparty_id !== counterpartyId) otherCounterparty.push(set.links[l]!.id);
  }
  add('frozen_link_to_reversed_entry', reversed);
  add('frozen_link_to_other_counterparty', otherCounterparty);
  const over: string[] = [];
  for (const e of ranked) if (set.frozen[e]! > Math.abs(set.open[e]!)) over.push(entries[e]!.id);
  add('frozen_over_allocation', over);
  return blockers;
}

// ---------------------------------------------------------------------------
// Steps 1–2: the FIFO walk over what frozen links leave.

/** The target: allocations as parallel arrays, each walked transaction's a contiguous run. */
interface Walk {
  /** By allocation: the entry's rank and the amount. */
  rank: Int32Array;
  amount: Float64Array;
  /** By walked index: where its allocations start and how many there are. */
  start: Int32Array;
  count: Int32Array;
  unallocated: number;
  uncovered: number;
}

/** One side of the walk (money in against receivables, or out against payables): its queues by position. */
interface Side {
  needs: Float64Array;
  /** By need: the walked index of its transaction. */
  queue: Int32Array;
  rooms: Float64Array;
  /** By room: the entry's rank. */
  ranks: Int32Array;
}

function walkFifo(set: RecordSet): Walk {
  const { transactions, walked, ranked } = set;
  // why typed arrays sized by a first count: at 100k the walk's growing
  // number arrays were a good part of the plan's garbage.
  let inflowCount = 0;
  let outflowCount = 0;
  for (let w = 0; w < walked.length; w += 1) {
    const amount = transactions[walked[w]!]!.amount_minor;
    if (amount > 0) inflowCount += 1;
    else if (amount < 0) outflowCount += 1;
  }
  let receivableCount = 0;
  for (let r = 0; r < ranked.length; r += 1) if (set.open[ranked[r]!]! > 0) receivableCount += 1;
  const side = (needs: number, rooms: number): Side => ({
    needs: new Float64Array(needs),
    queue: new Int32Array(needs),
    rooms: new Float64Array(rooms),
    ranks: new Int32Array(rooms),
  });
  const inflow = side(inflowCount, receivableCount);
  const outflow = side(outflowCount, ranked.length - receivableCount);
  let i = 0;
  let o = 0;
  for (let w = 0; w < walked.length; w += 1) {
    const amount = transactions[walked[w]!]!.amount_minor;
    if (amount > 0) {
      inflow.needs[i] = amount;
      inflow.queue[i] = w;
      i += 1;
    } else if (amount < 0) {
      outflow.needs[o] = -amount;
      outflow.queue[o] = w;
      o += 1;
    }
  }
  i = 0;
  o = 0;
  for (let r = 0; r < ranked.length; r += 1) {
    const e = ranked[r]!;
    const room = Math.abs(set.open[e]!) - set.frozen[e]!;
    if (set.open[e]! > 0) {
      inflow.rooms[i] = room;
      inflow.ranks[i] = r;
      i += 1;
    } else {
      outflow.rooms[o] = room;
      outflow.ranks[o] = r;
      o += 1;
    }
  }

  const capacity = walked.length + ranked.length;
  const walk: Walk = {
    rank: new Int32Array(capacity),
    amount: new Float64Array(capacity),
    start: new Int32Array(walked.length),
    count: new Int32Array(walked.length),
    unallocated: 0,
    uncovered: 0,
  };
  const pairs: FifoPairs = {
    transaction: new Int32Array(capacity),
    entry: new Int32Array(capacity),
    amount: new Float64Array(capacity),
    length: 0,
  };
  let size = 0;
  for (const { needs, queue, rooms, ranks } of [inflow, outflow]) {
    pairs.length = 0;
    allocateFifoAt(needs, rooms, pairs);
    for (let k = 0; k < pairs.length; k += 1) {
      const w = queue[pairs.transaction[k]!]!;
      if (walk.count[w] === 0) walk.start[w] = size;
      walk.count[w] = walk.count[w]! + 1;
      walk.rank[size] = ranks[pairs.entry[k]!]!;
      walk.amount[size] = pairs.amount[k]!;
      size += 1;
    }
    walk.unallocated += sum(needs);
    walk.uncovered += sum(rooms);
  }
  return walk;
}

// ---------------------------------------------------------------------------
// Step 3: diff one walked transaction's links against its target.

/**
 * Append walked transaction `w`'s actions to `into`: moves, then new links,
 * then unlinks; and mark the entries they touch in `touched` (by position).
 */
function diffTransaction(set: RecordSet, walk: Walk, w: number, into: RepairAction[], touched: Uint8Array): void {
  const { entries, ranked } = set;
  const t = set.walked[w]!;
  const transactionId = set.transactions[t]!.id;
  const start = walk.start[w]!;
  const end = start + walk.count[w]!;
  const first = set.firstLink[t]!;
  if (first === -1) {
    // why: the common case at scale (nothing linked yet): every target pair is
    // a new link, already in entry order; no maps to build.
    for (let k = start; k < end; k += 1) {
      const e = ranked[walk.rank[k]!]!;
      touched[e] = 1;
      into.push({
        kind: 'link',
        bank_transaction_id: transactionId,
        ledger_entry_id: entries[e]!.id,
        amount_minor: walk.amount[k]!,
      });
    }
    return;
  }
  const links: number[] = [];
  for (let l = first; l !== -1; l = set.linkNext[l]!) links.push(l);
  if (matchesExactly(set, links, walk, start, end)) return;

  // The links grouped by entry: in-set entries by rank, then out-of-set
  // ones by id, each group in input order (the sort is stable). why not maps:
  // a third of the transactions at 100k come here with a link or two, and
  // a map, a set and their spreads per transaction were most of the diff.
  const { rank, linkEntry } = set;
  links.sort((a, b) => {
    const ra = rank[linkEntry[a]!]!;
    const rb = rank[linkEntry[b]!]!;
    if (ra >= 0 || rb >= 0) return ra < 0 ? 1 : rb < 0 ? -1 : ra - rb;
    return compareIds(entries[linkEntry[a]!]!.id, entries[linkEntry[b]!]!.id);
  });

  // Walk the target pairs (in rank order: the FIFO walk gives a transaction's
  // entries in queue order) beside the in-set groups, entry by entry.
  const releases: Release[] = [];
  const needs: Need[] = [];
  let k = start;
  let i = 0;
  for (;;) {
    const pairRank = k < end ? walk.rank[k]! : -1;
    const linkRank = i < links.length ? rank[linkEntry[links[i]!]!]! : -1;
    if (pairRank < 0 && linkRank < 0) break;
    const r = pairRank < 0 ? linkRank : linkRank < 0 ? pairRank : Math.min(pairRank, linkRank);
    let wanted = 0;
    if (r === pairRank) {
      wanted = walk.amount[k]!;
      k += 1;
      if (k < end && walk.rank[k]! <= r) throw new Error("internal: a transaction's FIFO pairs are not in entry order");
    }
    const from = i;
    let current = 0;
    for (; i < links.length && linkEntry[links[i]!] === ranked[r]; i += 1)
      current += set.links[links[i]!]!.amount_minor;
    const e = ranked[r]!;
    if (current > wanted) releaseNewestFirst(set.links, links, from, i, current - wanted, e, releases);
    else if (wanted > current) needs.push({ entry: e, amount: wanted - current });
  }
  // Outside the set: every group is released whole.
  while (i < links.length) {
    const from = i;
    const e = linkEntry[links[i]!]!;
    let current = 0;
    for (; i < links.length && linkEntry[links[i]!] === e; i += 1) current += set.links[links[i]!]!.amount_minor;
    releaseNewestFirst(set.links, links, from, i, current, e, releases);
  }

  // Pair released and needed amounts, both in entry order.
  let r = 0;
  let n = 0;
  while (r < releases.length && n < needs.length) {
    const release = releases[r]!;
    const need = needs[n]!;
    const amount = Math.min(release.amount, need.amount);
    touched[release.entry] = 1;
    touched[need.entry] = 1;
    into.push({
      kind: 'move',
      bank_transaction_id: transactionId,
      link_id: set.links[release.link]!.id,
      from_ledger_entry_id: entries[release.entry]!.id,
      to_ledger_entry_id: entries[need.entry]!.id,
      amount_minor: amount,
    });
    release.amount -= amount;
    need.amount -= amount;
    if (release.amount === 0) r += 1;
    if (need.amount === 0) n += 1;
  }
  for (; n < needs.length; n += 1) {
    const need = needs[n]!;
    touched[need.entry] = 1;
    into.push({
      kind: 'link',
      bank_transaction_id: transactionId,
      ledger_entry_id: entries[need.entry]!.id,
      amount_minor: need.amount,
    });
  }
  for (; r < releases.length; r += 1) {
    const release = releases[r]!;
    touched[release.entry] = 1;
    into.push({
      kind: 'unlink',
      bank_transaction_id: transactionId,
      link_id: set.links[release.link]!.id,
      ledger_entry_id: entries[release.entry]!.id,
      amount_minor: release.amount,
    });
  }
}

/** A part of a link to release: the link (index into RecordSet.links), its entry's position, the amount. */
interface Release {
  link: number;
  entry: number;
  amount: number;
}

interface Need {
  entry: number;
  amount: number;
}

/**
 * The common case, checked without building maps: one link per target pair,
 * each with the target amount, and no other link.
 */
function matchesExactly(set: RecordSet, links: readonly number[], walk: Walk, start: number, end: number): boolean {
  if (links.length !== end - start) return false;
  if (end - start > 8) {
    // why: one payment against thousands of invoices must not go quadratic.
    const wanted = new Map<number, number>();
    for (let k = start; k < end; k += 1) wanted.set(set.ranked[walk.rank[k]!]!, walk.amount[k]!);
    for (const l of links) {
      const e = set.linkEntry[l]!;
      if (wanted.get(e) !== set.links[l]!.amount_minor) return false;
      wanted.delete(e);
    }
    return wanted.size === 0;
  }
  for (let k = start; k < end; k += 1) {
    const e = set.ranked[walk.rank[k]!]!;
    let found = 0;
    for (const l of links) {
      if (set.linkEntry[l] !== e) continue;
      if (set.links[l]!.amount_minor !== walk.amount[k]) return false;
      found += 1;
    }
    if (found !== 1) return false;
  }
  return true;
}

/**
 * Release `amount` from one pair's links, `group[from..to)`, newest first
 * (created_at, then id, descending).
 */
function releaseNewestFirst(
  links: readonly BankLink[],
  group: readonly number[],
  from: number,
  to: number,
  amount: number,
  entry: number,
  into: Release[],
): void {
  if (to - from === 1) {
    const l = group[from]!;
    into.push({ link: l, entry, amount: Math.min(amount, links[l]!.amount_minor) });
    return;
  }
  const newestFirst = group
    .slice(from, to)
    .sort((a, b) => compareIds(links[b]!.created_at, links[a]!.created_at) || compareIds(links[b]!.id, links[a]!.id));
  let left = amount;
  for (const l of newestFirst) {
    if (left === 0) break;
    const take = Math.min(left, links[l]!.amount_minor);
    into.push({ link: l, entry, amount: take });
    left -= take;
  }
}

// ---------------------------------------------------------------------------
// The plan's summary.
function summarise(actions: readonly RepairAction[], unallocated: number, uncovered: number): LinkRepairSummary {
  const summary: LinkRepairSummary = {
    moves: 0,
    links: 0,
    unlinks: 0,
    moved_minor: 0,
    linked_minor: 0,
    unlinked_minor: 0,
    unallocated_transaction_minor: unallocated,
    uncovered_entry_minor: uncovered,
  };
  for (const action of actions) {
    if (action.kind === 'move') {
      summary.moves += 1;
      summary.moved_minor += action.amount_minor;
    } else if (action.kind === 'link') {
      summary.links += 1;
      summary.linked_minor += action.amount_minor;
    } else {
      summary.unlinks += 1;
      summary.unlinked_minor += action.amount_minor;
    }
  }
  return summary;
}

// ---------------------------------------------------------------------------
// Small helpers.

/**
 * Sort ids in place in code-unit order. The default sort compares strings by
 * UTF-16 code units, exactly as compareIds does, several times faster.
 */
function sortIds(ids: string[]): string[] {
  for (let i = 1; i < ids.length; i += 1) if (ids[i - 1]! > ids[i]!) return ids.sort();
  return ids;
}

/**
 * One record per id, in order of first appearance. why: a caller merging "the
 * counterparty's entries" with "every entry referenced by a link" may pass
 * one twice; the higher version is the fresher read. Records already in
 * strict id order (the store's reads) hold each id once and are kept as they
 * are, and `byId` says so.
 */
function uniqueRecords<T extends { id: string; version: number }>(
  records: readonly T[],
): { records: readonly T[]; byId: boolean } {
  if (isSortedById(records)) return { records, byId: true };
  const at = new Map<string, number>();
  const unique: T[] = [];
  for (const record of records) {
    const seen = at.get(record.id);
    if (seen === undefined) {
      at.set(record.id, unique.length);
      unique.push(record);
    } else if (record.version > unique[seen]!.version) unique[seen] = record;
  }
  return { records: unique, byId: false };
}

/** Sort positions in place by a total order; input already in order (the usual case) is only checked. */
function sortPositions(positions: Int32Array, compare: (a: number, b: number) => number): void {
  for (let i = 1; i < positions.length; i += 1) {
    if (compare(positions[i - 1]!, positions[i]!) > 0) {
      positions.sort(compare);
      return;
    }
  }
}

function isSortedById(records: readonly { id: string }[]): boolean {
  for (let i = 1; i < records.length; i += 1) if (records[i - 1]!.id >= records[i]!.id) return false;
  return true;
}

function sum(values: Float64Array): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

const byBookingDateThenId = (a: BankTransaction, b: BankTransaction): number =>
  compareIds(a.booking_date, b.booking_date) || compareIds(a.id, b.id);

const byEntryDateThenId = (a: LedgerEntry, b: LedgerEntry): number =>
  compareIds(a.entry_date, b.entry_date) || compareIds(a.id, b.id);
