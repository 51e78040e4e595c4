// Frozen copy of planLinkRepair before the 100k speed-up (100k transactions): the oracle
// test/unit/link-repair-oracle.test.ts compares the current rule against.
// Not to be edited.
// FIFO ledger ↔ bank link repair (docs/reference/http-api.md §8): scope, frozen links, the FIFO
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
} from '../../shared/domain/books.js';
import { compareIds, openAmountMinor } from '../../shared/domain/books.js';
import { allocateFifo, type FifoAllocation, type FifoItem } from '../../shared/domain/fifo-allocation.js';
import type { Decision } from '../../shared/domain/decision.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import type { PlanLocks } from '../../shared/domain/pending-gate.js';

/**
 * The books one repair reads. The caller passes at least: the account's
 * transactions with this counterparty, the counterparty's entries plus every
 * entry a passed link points to, and every link of those transactions plus
 * every link pointing to the counterparty's entries (from any transaction).
 * Scope membership is decided here, from the fields; extra records are ignored.
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

export interface RepairMoveAction {
  kind: 'move';
  bank_transaction_id: string;
  link_id: string;
  from_ledger_entry_id: string;
  to_ledger_entry_id: string;
  amount_minor: number;
}

export interface RepairLinkAction {
  kind: 'link';
  bank_transaction_id: string;
  ledger_entry_id: string;
  amount_minor: number;
}

export interface RepairUnlinkAction {
  kind: 'unlink';
  bank_transaction_id: string;
  link_id: string;
  ledger_entry_id: string;
  amount_minor: number;
}

export type RepairAction = RepairMoveAction | RepairLinkAction | RepairUnlinkAction;

export interface LinkRepairSummary {
  moves: number;
  links: number;
  unlinks: number;
  moved_minor: number;
  linked_minor: number;
  unlinked_minor: number;
  /** Σ walked transactions' amounts the FIFO walk could not allocate. */
  unallocated_transaction_minor: number;
  /** Σ in-scope entries' capacity left after frozen links and the walk. */
  uncovered_entry_minor: number;
}

export interface LinkRepairPlan {
  bank_account_id: string;
  counterparty_id: string;
  as_of: IsoDate;
  actions: RepairAction[];
  summary: LinkRepairSummary;
}

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

export function repairSubjectKey(bankAccountId: string, counterpartyId: string): string {
  return `repair:${bankAccountId}:${counterpartyId}`;
}

/** Plan the repair of one account + counterparty (docs/reference/http-api.md §8 steps 1–4). */
export function planLinkRepair(input: LinkRepairInput): LinkRepairOutcome {
  const scope = readScope(input);
  const blockers = findBlockers(scope, input.account.currency, input.counterparty_id);
  if (blockers.length > 0) return { outcome: 'blocked', blockers, plan: null, plan_hash: null };

  const walk = walkFifo(scope);
  const actions: RepairAction[] = [];
  for (const txn of scope.walked) {
    for (const action of diffTransaction(
      txn.id,
      scope.currentLinks.get(txn.id) ?? NONE,
      walk.target.get(txn.id) ?? NONE,
      scope.entryRank,
    )) {
      actions.push(action);
    }
  }

  const plan: LinkRepairPlan = {
    bank_account_id: input.account.id,
    counterparty_id: input.counterparty_id,
    as_of: input.as_of,
    actions,
    summary: summarise(actions, walk.unallocated, walk.uncovered),
  };
  const plan_hash = planHash(plan);
  if (actions.length === 0) return { outcome: 'noop', blockers: [], plan, plan_hash };
  return {
    outcome: 'staged',
    blockers: [],
    plan,
    plan_hash,
    locks: locksOf(input, actions),
    preconditions: scope.preconditions,
  };
}

/**
 * The repair as a staging decision. Pending holders are not checked here: a
 * repair's rules have no order to keep around them, so the commit step meets
 * any holder when it takes the locks. Applying the plan re-checks the org's
 * version too.
 */
export function decideLinkRepair(input: LinkRepairInput, org: Pick<Org, 'id' | 'version'>): Decision<LinkRepairPlan> {
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
// Step 0: scope. Which records take part, and how.

interface ScopeEntry {
  entry: LedgerEntry;
  /** Signed open amount on the settlement accounts; never 0 here. */
  open: number;
  /** Σ frozen links pointing to this entry. */
  frozen: number;
}

interface Scope {
  /** In-scope transactions, any status, in no particular order. */
  transactions: BankTransaction[];
  /** In-scope unreconciled transactions in FIFO order (booking_date, id). */
  walked: BankTransaction[];
  /** In-scope entries in FIFO order (entry_date, id). */
  entries: ScopeEntry[];
  /** Entry id → position in `entries`, for "entry order". */
  entryRank: Map<string, number>;
  /** Every passed entry, by id. */
  entryById: Map<string, LedgerEntry>;
  /** Changeable links of walked transactions, by transaction id. */
  currentLinks: Map<string, BankLink[]>;
  /** Frozen links of reconciled in-scope transactions (checked for blockers). */
  reconciledLinks: BankLink[];
  preconditions: Precondition[];
}

function readScope(input: LinkRepairInput): Scope {
  const { account, counterparty_id: counterpartyId, as_of: asOf } = input;
  const transactionById = uniqueById(input.transactions);
  const entryById = uniqueById(input.entries);
  const linkById = uniqueById(input.links);

  // Candidates: this account and counterparty, any date. Their booking_date
  // decides membership, so all of them are read (and are preconditions).
  const candidates: BankTransaction[] = [];
  for (const t of transactionById.values()) {
    if (t.bank_account_id === account.id && t.counterparty_id === counterpartyId) candidates.push(t);
  }
  const transactions = candidates.filter((t) => t.booking_date <= asOf);
  for (const t of transactions) {
    if (!Number.isSafeInteger(t.amount_minor)) throw new RangeError(`amount_minor of ${t.id} must be a safe integer`);
  }
  const scopeTransactionById = new Map(transactions.map((t) => [t.id, t]));
  const walked = transactions.filter((t) => t.status !== 'reconciled').sort(byBookingDateThenId);

  const counterpartyEntries = [...entryById.values()].filter((e) => e.counterparty_id === counterpartyId);
  const entries: ScopeEntry[] = [];
  for (const entry of counterpartyEntries) {
    if (entry.status !== 'posted' || isReversed(entry) || isReversal(entry) || entry.entry_date > asOf) continue;
    const open = openAmountMinor(entry, input.settlement_accounts);
    if (!Number.isSafeInteger(open)) throw new RangeError(`open amount of ${entry.id} must be a safe integer`);
    if (open !== 0) entries.push({ entry, open, frozen: 0 });
  }
  entries.sort((a, b) => byEntryDateThenId(a.entry, b.entry));
  const entryRank = new Map(entries.map((s, i) => [s.entry.id, i]));

  // Links that matter: every link of an in-scope transaction, and every link
  // pointing to an in-scope entry (from any transaction). Others are ignored.
  const links: BankLink[] = [];
  for (const l of linkById.values()) {
    if (scopeTransactionById.has(l.bank_transaction_id) || entryRank.has(l.ledger_entry_id)) links.push(l);
  }
  const currentLinks = new Map<string, BankLink[]>();
  const reconciledLinks: BankLink[] = [];
  const linkedEntryIds = new Set<string>();
  for (const link of links) {
    if (!Number.isSafeInteger(link.amount_minor) || link.amount_minor <= 0) {
      throw new RangeError(`amount_minor of bank link ${link.id} must be a positive safe integer`);
    }
    const txn = scopeTransactionById.get(link.bank_transaction_id);
    if (txn && !entryById.has(link.ledger_entry_id)) {
      // why: without the entry we cannot tell whether the link is in scope;
      // guessing would either release a valid link or keep a wrong one.
      throw new Error(`bank link ${link.id} points to ledger entry ${link.ledger_entry_id}, which was not provided`);
    }
    linkedEntryIds.add(link.ledger_entry_id);
    if (txn && txn.status !== 'reconciled') {
      pushTo(currentLinks, txn.id, link);
      continue;
    }
    // Frozen: a reconciled in-scope transaction, or a transaction outside the scope.
    if (txn) reconciledLinks.push(link);
    const rank = entryRank.get(link.ledger_entry_id);
    if (rank !== undefined) entries[rank]!.frozen += link.amount_minor;
  }

  const readEntries = new Map(counterpartyEntries.map((e) => [e.id, e]));
  for (const id of linkedEntryIds) {
    const entry = entryById.get(id);
    if (entry) readEntries.set(id, entry);
  }
  // Collections in code-unit order, each one's records by id.
  const preconditions: Precondition[] = [{ collection: 'bank_accounts', id: account.id, version: account.version }];
  appendPreconditions(preconditions, 'bank_links', links);
  appendPreconditions(preconditions, 'bank_transactions', candidates);
  appendPreconditions(preconditions, 'ledger_entries', [...readEntries.values()]);

  return { transactions, walked, entries, entryRank, entryById, currentLinks, reconciledLinks, preconditions };
}

// why: an entry that names the entry reversing it is reversed even if its
// status was not updated; reversal-plan.ts treats it the same way.
function isReversed(entry: LedgerEntry): boolean {
  return entry.status === 'reversed' || Boolean(entry.reversed_by);
}

function isReversal(entry: LedgerEntry): boolean {
  return Boolean(entry.reversal_of);
}

function appendPreconditions(
  into: Precondition[],
  collection: Precondition['collection'],
  records: readonly { id: string; version: number }[],
): void {
  const versions = new Map(records.map((r) => [r.id, r.version]));
  for (const id of sortIds([...versions.keys()])) into.push({ collection, id, version: versions.get(id)! });
}

// ---------------------------------------------------------------------------
// Step 4 (checked first): blockers, in contract order, ids sorted.

function findBlockers(scope: Scope, currency: string, counterpartyId: string): LinkRepairBlocker[] {
  const blockers: LinkRepairBlocker[] = [];
  const add = (code: LinkRepairBlockerCode, ids: string[]): void => {
    if (ids.length > 0) blockers.push({ code, ids: sortIds([...new Set(ids)]) });
  };

  // why: every in-scope transaction counts, reconciled ones too (the rule
  // says "a transaction in scope"): their frozen links consume capacity, and
  // an amount in another currency cannot be set against the account's.
  add('currency_mismatch', [
    ...scope.transactions.filter((t) => t.currency !== currency).map((t) => t.id),
    ...scope.entries.filter((s) => s.entry.currency !== currency).map((s) => s.entry.id),
  ]);
  // why: a link may be both (a reversed entry of another counterparty); it
  // is then listed under both codes, since each is a separate fix.
  const reversed: string[] = [];
  const otherCounterparty: string[] = [];
  for (const link of scope.reconciledLinks) {
    const entry = scope.entryById.get(link.ledger_entry_id)!;
    if (isReversed(entry)) reversed.push(link.id);
    if (entry.counterparty_id !== counterpartyId) otherCounterparty.push(link.id);
  }
  add('frozen_link_to_reversed_entry', reversed);
  add('frozen_link_to_other_counterparty', otherCounterparty);
  add(
    'frozen_over_allocation',
    scope.entries.filter((s) => s.frozen > Math.abs(s.open)).map((s) => s.entry.id),
  );
  return blockers;
}

// ---------------------------------------------------------------------------
// Steps 1–2: the FIFO walk over what frozen links leave.

interface Walk {
  /** Transaction id → its target allocations, in entry order. */
  target: Map<string, FifoAllocation[]>;
  unallocated: number;
  uncovered: number;
}

function walkFifo(scope: Scope): Walk {
  const inflows: FifoItem[] = [];
  const outflows: FifoItem[] = [];
  for (const t of scope.walked) {
    if (t.amount_minor > 0) inflows.push({ id: t.id, amount_minor: t.amount_minor });
    else if (t.amount_minor < 0) outflows.push({ id: t.id, amount_minor: -t.amount_minor });
  }
  const receivables: FifoItem[] = [];
  const payables: FifoItem[] = [];
  for (const s of scope.entries) {
    const capacity = { id: s.entry.id, amount_minor: Math.abs(s.open) - s.frozen };
    (s.open > 0 ? receivables : payables).push(capacity);
  }

  const target = new Map<string, FifoAllocation[]>();
  let unallocated = 0;
  let uncovered = 0;
  for (const [transactions, entries] of [
    [inflows, receivables],
    [outflows, payables],
  ] as const) {
    const result = allocateFifo(transactions, entries);
    for (const a of result.allocations) pushTo(target, a.transaction_id, a);
    unallocated += sum(result.transaction_remainders);
    uncovered += sum(result.entry_remainders);
  }
  return { target, unallocated, uncovered };
}

// ---------------------------------------------------------------------------
// Step 3: diff one walked transaction's links against its target.

interface Release {
  link: BankLink;
  entryId: string;
  amount: number;
}

interface Need {
  entryId: string;
  amount: number;
}

function diffTransaction(
  transactionId: string,
  links: readonly BankLink[],
  target: readonly FifoAllocation[],
  entryRank: ReadonlyMap<string, number>,
): readonly RepairAction[] {
  if (matchesExactly(links, target)) return NONE;
  const linksByEntry = new Map<string, BankLink[]>();
  for (const link of links) pushTo(linksByEntry, link.ledger_entry_id, link);
  const wantedByEntry = new Map(target.map((a) => [a.entry_id, a.amount_minor]));

  const inScope = new Set<string>(wantedByEntry.keys());
  const outOfScope: string[] = [];
  for (const entryId of linksByEntry.keys()) {
    if (entryRank.has(entryId)) inScope.add(entryId);
    else outOfScope.push(entryId);
  }
  const inScopeOrdered = [...inScope].sort((a, b) => entryRank.get(a)! - entryRank.get(b)!);
  sortIds(outOfScope);

  const releases: Release[] = [];
  const needs: Need[] = [];
  for (const entryId of inScopeOrdered) {
    const pairLinks = linksByEntry.get(entryId) ?? [];
    const current = sum(pairLinks.map((l) => l.amount_minor));
    const wanted = wantedByEntry.get(entryId) ?? 0;
    if (current > wanted) releaseNewestFirst(pairLinks, current - wanted, entryId, releases);
    else if (wanted > current) needs.push({ entryId, amount: wanted - current });
  }
  for (const entryId of outOfScope) {
    const pairLinks = linksByEntry.get(entryId)!;
    releaseNewestFirst(pairLinks, sum(pairLinks.map((l) => l.amount_minor)), entryId, releases);
  }

  // Pair released and needed amounts, both in entry order.
  const moves: RepairMoveAction[] = [];
  let r = 0;
  let n = 0;
  while (r < releases.length && n < needs.length) {
    const release = releases[r]!;
    const need = needs[n]!;
    const amount = Math.min(release.amount, need.amount);
    moves.push({
      kind: 'move',
      bank_transaction_id: transactionId,
      link_id: release.link.id,
      from_ledger_entry_id: release.entryId,
      to_ledger_entry_id: need.entryId,
      amount_minor: amount,
    });
    release.amount -= amount;
    need.amount -= amount;
    if (release.amount === 0) r += 1;
    if (need.amount === 0) n += 1;
  }
  const newLinks: RepairLinkAction[] = needs.slice(n).map((need) => ({
    kind: 'link',
    bank_transaction_id: transactionId,
    ledger_entry_id: need.entryId,
    amount_minor: need.amount,
  }));
  const unlinks: RepairUnlinkAction[] = releases.slice(r).map((release) => ({
    kind: 'unlink',
    bank_transaction_id: transactionId,
    link_id: release.link.id,
    ledger_entry_id: release.entryId,
    amount_minor: release.amount,
  }));
  return [...moves, ...newLinks, ...unlinks];
}

/**
 * The common case, checked without building maps: one link per target pair,
 * each with the target amount, and no other link.
 */
function matchesExactly(links: readonly BankLink[], target: readonly FifoAllocation[]): boolean {
  if (links.length !== target.length) return false;
  if (target.length > 8) {
    // why: one payment against thousands of invoices must not go quadratic.
    const wanted = new Map(target.map((a) => [a.entry_id, a.amount_minor]));
    for (const link of links) {
      if (wanted.get(link.ledger_entry_id) !== link.amount_minor) return false;
      wanted.delete(link.ledger_entry_id);
    }
    return wanted.size === 0;
  }
  for (const a of target) {
    let found = 0;
    for (const link of links) {
      if (link.ledger_entry_id !== a.entry_id) continue;
      if (link.amount_minor !== a.amount_minor) return false;
      found += 1;
    }
    if (found !== 1) return false;
  }
  return true;
}

/** Release `amount` from one pair's links, newest first (created_at, then id, descending). */
function releaseNewestFirst(pairLinks: readonly BankLink[], amount: number, entryId: string, into: Release[]): void {
  const newestFirst = [...pairLinks].sort((a, b) => compareIds(b.created_at, a.created_at) || compareIds(b.id, a.id));
  let left = amount;
  for (const link of newestFirst) {
    if (left === 0) break;
    const take = Math.min(left, link.amount_minor);
    into.push({ link, entryId, amount: take });
    left -= take;
  }
}

// ---------------------------------------------------------------------------
// The plan's summary and locks.

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

function locksOf(input: LinkRepairInput, actions: readonly RepairAction[]): PlanLocks {
  const entryIds = new Set<string>();
  const transactionIds = new Set<string>();
  for (const action of actions) {
    transactionIds.add(action.bank_transaction_id);
    if (action.kind === 'move') {
      entryIds.add(action.from_ledger_entry_id);
      entryIds.add(action.to_ledger_entry_id);
    } else {
      entryIds.add(action.ledger_entry_id);
    }
  }
  return {
    subject_key: repairSubjectKey(input.account.id, input.counterparty_id),
    entry_ids: sortIds([...entryIds]),
    transaction_ids: sortIds([...transactionIds]),
  };
}

// ---------------------------------------------------------------------------
// Small helpers.

const NONE: readonly never[] = Object.freeze([]);

/**
 * Sort ids in place in code-unit order. The default sort compares strings by
 * UTF-16 code units, exactly as compareIds does, several times faster.
 */
function sortIds(ids: string[]): string[] {
  return ids.sort();
}

/**
 * One record per id. why: a caller merging "the counterparty's entries" with
 * "every entry referenced by a link" may pass one twice; the higher version
 * is the fresher read.
 */
function uniqueById<T extends { id: string; version: number }>(records: readonly T[]): Map<string, T> {
  const byId = new Map<string, T>();
  for (const record of records) {
    const seen = byId.get(record.id);
    if (!seen || record.version > seen.version) byId.set(record.id, record);
  }
  return byId;
}

function pushTo<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

const byBookingDateThenId = (a: BankTransaction, b: BankTransaction): number =>
  compareIds(a.booking_date, b.booking_date) || compareIds(a.id, b.id);

const byEntryDateThenId = (a: LedgerEntry, b: LedgerEntry): number =>
  compareIds(a.entry_date, b.entry_date) || compareIds(a.id, b.id);
