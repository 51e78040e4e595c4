// Bank matches (docs/reference/http-api.md "Bank matches"): the refusals, in their
// contractual order, and the plan a bookkeeper approves. Pure: the worker loads
// the account, the transactions and entries the pairs name and their links, and
// the pending holders; this decides.
import { createHash } from 'node:crypto';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry, Org, Precondition } from '../../domain/books.js';
import { compareIds, isReversalEntry, openAmountMinor } from '../../domain/books.js';
import { refused, type Decision, type RefusedDecision, type StagedDecision } from '../../domain/decision.js';
import { planHash } from '../../domain/plan-hash.js';
import { decideWithPending, type PendingHolder } from '../../domain/pending-gate.js';
import { sumAbsMinor } from '../operation-amount.js';

/** A sum past 2^53 − 1 as the largest safe integer: it is refused, and its exact size does not matter. */
const safeNumber = (v: bigint): number => (v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v));

export interface MatchPair {
  bank_transaction_id: string;
  ledger_entry_id: string;
  /** Always positive: what the new link covers of both. */
  amount_minor: number;
}

export interface BankMatchRequest {
  bank_account_id: string;
  matches: readonly MatchPair[];
  note: string | null;
}

export interface BankMatchBooks {
  org: Org;
  /** null when the account is not the organisation's. */
  account: BankAccount | null;
  /** The transactions the pairs name that exist in the organisation (any account). */
  transactions: readonly BankTransaction[];
  /** The entries the pairs name that exist in the organisation. */
  entries: readonly LedgerEntry[];
  /** Every link of those transactions and to those entries (a link may be given twice). */
  links: readonly BankLink[];
  /** Pending operations holding any of the transactions or entries. */
  pending: readonly PendingHolder[];
}

/** A transaction of the plan: what its links leave of |amount|, before and after the whole operation. */
export interface MatchedTransaction {
  bank_transaction_id: string;
  amount_minor: number;
  linked_before_minor: number;
  open_before_minor: number;
  open_after_minor: number;
}

/** An entry of the plan: its open amount (signed, settlement accounts) and what its links leave of it, before and after. */
export interface MatchedEntry {
  ledger_entry_id: string;
  open_amount_minor: number;
  linked_before_minor: number;
  open_before_minor: number;
  open_after_minor: number;
}

export interface BankMatchPlan {
  bank_account_id: string;
  currency: string;
  /** By (transaction id, entry id): each becomes one new link. */
  pairs: MatchPair[];
  /** By id. */
  transactions: MatchedTransaction[];
  /** By id. */
  entries: MatchedEntry[];
  /** Σ of the pairs' amounts. */
  total_minor: number;
  note: string | null;
}

export type BankMatchDecision = Decision<BankMatchPlan>;

const pairKey = (p: Pick<MatchPair, 'bank_transaction_id' | 'ledger_entry_id'>): string =>
  `${p.bank_transaction_id}\u0000${p.ledger_entry_id}`;
const byPair = (a: MatchPair, b: MatchPair): number =>
  compareIds(a.bank_transaction_id, b.bank_transaction_id) || compareIds(a.ledger_entry_id, b.ledger_entry_id);

/** The pairs' scope key: the account and a digest of the sorted pairs, so the very same request finds its own pending operation. */
export function bankMatchSubjectKey(request: Pick<BankMatchRequest, 'bank_account_id' | 'matches'>): string {
  const digest = createHash('sha256')
    .update([...request.matches].sort(byPair).map(pairKey).join('\u0001'))
    .digest('hex')
    .slice(0, 24);
  return `match:${request.bank_account_id}:${digest}`;
}

/** The transaction and entry ids the pairs name, each sorted by id: the plan's locks. */
export function bankMatchLockIds(matches: readonly MatchPair[]): { entry_ids: string[]; transaction_ids: string[] } {
  return {
    entry_ids: [...new Set(matches.map((m) => m.ledger_entry_id))].sort(compareIds),
    transaction_ids: [...new Set(matches.map((m) => m.bank_transaction_id))].sort(compareIds),
  };
}

type PairIds = Pick<MatchPair, 'bank_transaction_id' | 'ledger_entry_id'>;

/**
 * The first pair given twice, with the positions (0-based) of every time it
 * is given; null for none. A position that holds no pair (null) is skipped.
 */
export function duplicatePairDetails(
  matches: ReadonlyArray<PairIds | null>,
): { bank_transaction_id: string; ledger_entry_id: string; indexes: number[] } | null {
  const seen = new Map<string, number[]>();
  for (const [i, m] of matches.entries()) {
    if (m === null) continue;
    const at = seen.get(pairKey(m));
    if (at) at.push(i);
    else seen.set(pairKey(m), [i]);
  }
  for (const [i, m] of matches.entries()) {
    if (m === null) continue;
    const at = seen.get(pairKey(m))!;
    if (at.length > 1 && at[0] === i)
      return { bank_transaction_id: m.bank_transaction_id, ledger_entry_id: m.ledger_entry_id, indexes: at };
  }
  return null;
}

function duplicatePair(matches: readonly MatchPair[]): RefusedDecision | null {
  const details = duplicatePairDetails(matches);
  return details ? refused('duplicate_pair', details) : null;
}

/**
 * The same pair twice in a request body, checked before its schema
 * (docs/reference/http-api.md §8.1: a duplicate pair is refused before a
 * request of more than 500 pairs). Only items that name both ids as strings are pairs.
 */
export function duplicatePairInBody(
  body: unknown,
): { bank_transaction_id: string; ledger_entry_id: string; indexes: number[] } | null {
  const matches = (body as { matches?: unknown } | null)?.matches;
  if (!Array.isArray(matches)) return null;
  return duplicatePairDetails(
    matches.map((m: unknown) => {
      const pair = m as Partial<Record<keyof PairIds, unknown>> | null;
      return pair !== null &&
        typeof pair === 'object' &&
        typeof pair.bank_transaction_id === 'string' &&
        typeof pair.ledger_entry_id === 'string'
        ? { bank_transaction_id: pair.bank_transaction_id, ledger_entry_id: pair.ledger_entry_id }
        : null;
    }),
  );
}

/** Σ link amounts by the link's transaction and by its entry, each link once. */
function linkedSums(links: readonly BankLink[]) {
  const seen = new Set<string>();
  const unique: BankLink[] = [];
  const byTransaction = new Map<string, number>();
  const byEntry = new Map<string, number>();
  const byPairKey = new Map<string, string[]>();
  for (const l of links) {
    if (seen.has(l.id)) continue;
    seen.add(l.id);
    unique.push(l);
    byTransaction.set(l.bank_transaction_id, (byTransaction.get(l.bank_transaction_id) ?? 0) + l.amount_minor);
    byEntry.set(l.ledger_entry_id, (byEntry.get(l.ledger_entry_id) ?? 0) + l.amount_minor);
    const key = pairKey(l);
    byPairKey.set(key, [...(byPairKey.get(key) ?? []), l.id].sort(compareIds));
  }
  return { byTransaction, byEntry, byPairKey, unique };
}

/**
 * Whether money of this sign settles this entry: money in a posted receivable, money out a posted payable
 * (open amount on the settlement accounts > 0 / < 0; shared/domain/books.ts openAmountMinor).
 */
function sameDirection(transaction: BankTransaction, entry: LedgerEntry, settlement: readonly string[]): boolean {
  if (entry.status !== 'posted') return false;
  const open = openAmountMinor(entry, settlement);
  return (transaction.amount_minor > 0 && open > 0) || (transaction.amount_minor < 0 && open < 0);
}

/**
 * Decide a bank match. The refusals run in the order of docs/reference/http-api.md "Bank matches", the first
 * failing one answered; the pending gate comes last: a pending holder of any transaction or entry is
 * `pending_operation`, unless it holds this very plan (`existing`).
 */
export function decideBankMatch(books: BankMatchBooks, request: BankMatchRequest): BankMatchDecision {
  const { org, account } = books;
  const settlement = org.settlement_accounts;
  const duplicate = duplicatePair(request.matches);
  if (duplicate) return duplicate;
  if (!account) return refused('not_found', { resource: 'Bank account', id: request.bank_account_id });
  const txnById = new Map(books.transactions.map((t) => [t.id, t]));
  const entryById = new Map(books.entries.map((e) => [e.id, e]));
  for (const m of request.matches)
    if (!txnById.has(m.bank_transaction_id))
      return refused('not_found', { resource: 'Bank transaction', id: m.bank_transaction_id });
  for (const m of request.matches)
    if (!entryById.has(m.ledger_entry_id))
      return refused('not_found', { resource: 'Ledger entry', id: m.ledger_entry_id });
  const { entry_ids: entryIds, transaction_ids: transactionIds } = bankMatchLockIds(request.matches);
  const offAccount = transactionIds.filter((id) => txnById.get(id)!.bank_account_id !== account.id);
  if (offAccount.length > 0)
    return refused('transaction_not_on_account', { bank_account_id: account.id, bank_transaction_ids: offAccount });
  for (const m of request.matches) {
    const t = txnById.get(m.bank_transaction_id)!;
    const e = entryById.get(m.ledger_entry_id)!;
    if (t.currency !== e.currency)
      return refused('currency_mismatch', {
        bank_transaction_id: t.id,
        ledger_entry_id: e.id,
        transaction_currency: t.currency,
        entry_currency: e.currency,
      });
  }
  // A reversing entry settles the entry it reverses: no bank money is left to match with it (books.ts).
  for (const m of request.matches) {
    const e = entryById.get(m.ledger_entry_id)!;
    if (isReversalEntry(e)) return refused('entry_is_reversal', { ledger_entry_id: e.id, reversal_of: e.reversal_of });
  }
  for (const m of request.matches) {
    const t = txnById.get(m.bank_transaction_id)!;
    const e = entryById.get(m.ledger_entry_id)!;
    if (!sameDirection(t, e, settlement))
      return refused('direction_mismatch', {
        bank_transaction_id: t.id,
        ledger_entry_id: e.id,
        transaction_amount_minor: t.amount_minor,
        entry_open_amount_minor: openAmountMinor(e, settlement),
        entry_status: e.status,
      });
  }
  const linked = linkedSums(books.links);
  // Sums in BigInt: 500 amounts up to 2^53 − 1 each are exact only there. Past the checks below, each is at most
  // the |amount| of its transaction or the open amount of its entry, a safe integer.
  const requestedSum = (field: 'bank_transaction_id' | 'ledger_entry_id', id: string): bigint =>
    request.matches.reduce((s, m) => (m[field] === id ? s + BigInt(m.amount_minor) : s), 0n);
  const requestedBy = (field: 'bank_transaction_id' | 'ledger_entry_id', id: string): number =>
    Number(requestedSum(field, id));
  for (const id of transactionIds) {
    const t = txnById.get(id)!;
    const linkedMinor = linked.byTransaction.get(id) ?? 0;
    const requested = requestedSum('bank_transaction_id', id);
    if (BigInt(linkedMinor) + requested > BigInt(Math.abs(t.amount_minor)))
      return refused('over_allocated_transaction', {
        bank_transaction_id: id,
        amount_minor: t.amount_minor,
        linked_minor: linkedMinor,
        requested_minor: safeNumber(requested),
      });
  }
  // What an entry leaves open: |open amount| − Σ its links (the entry read's and the repair's rule).
  const openOf = (e: LedgerEntry): number => Math.abs(openAmountMinor(e, settlement)) - (linked.byEntry.get(e.id) ?? 0);
  for (const id of entryIds) {
    const open = openOf(entryById.get(id)!);
    const requested = requestedSum('ledger_entry_id', id);
    if (requested > BigInt(open))
      return refused('over_allocated_entry', {
        ledger_entry_id: id,
        open_minor: open,
        requested_minor: safeNumber(requested),
      });
  }
  for (const m of request.matches) {
    const existing = linked.byPairKey.get(pairKey(m));
    if (existing)
      return refused('already_linked', {
        bank_transaction_id: m.bank_transaction_id,
        ledger_entry_id: m.ledger_entry_id,
        link_ids: existing,
      });
  }

  const pairs = request.matches
    .map((m) => ({
      bank_transaction_id: m.bank_transaction_id,
      ledger_entry_id: m.ledger_entry_id,
      amount_minor: m.amount_minor,
    }))
    .sort(byPair);
  const plan: BankMatchPlan = {
    bank_account_id: account.id,
    currency: account.currency,
    pairs,
    transactions: transactionIds.map((id) => {
      const t = txnById.get(id)!;
      const before = linked.byTransaction.get(id) ?? 0;
      const open = Math.abs(t.amount_minor) - before;
      return {
        bank_transaction_id: id,
        amount_minor: t.amount_minor,
        linked_before_minor: before,
        open_before_minor: open,
        open_after_minor: open - requestedBy('bank_transaction_id', id),
      };
    }),
    entries: entryIds.map((id) => {
      const e = entryById.get(id)!;
      const open = openOf(e);
      return {
        ledger_entry_id: id,
        open_amount_minor: openAmountMinor(e, settlement),
        linked_before_minor: linked.byEntry.get(id) ?? 0,
        open_before_minor: open,
        open_after_minor: open - requestedBy('ledger_entry_id', id),
      };
    }),
    total_minor: sumAbsMinor(pairs.map((p) => p.amount_minor)),
    note: request.note,
  };
  const preconditions: Precondition[] = [
    { collection: 'bank_accounts', id: account.id, version: account.version },
    ...transactionIds.map((id): Precondition => ({
      collection: 'bank_transactions',
      id,
      version: txnById.get(id)!.version,
    })),
    ...entryIds.map((id): Precondition => ({ collection: 'ledger_entries', id, version: entryById.get(id)!.version })),
    ...[...linked.unique]
      .sort((a, b) => compareIds(a.id, b.id))
      .map((l): Precondition => ({ collection: 'bank_links', id: l.id, version: l.version })),
  ];
  const staged: StagedDecision<BankMatchPlan> = {
    outcome: 'staged',
    plan,
    plan_hash: planHash(plan),
    locks: { subject_key: bankMatchSubjectKey(request), entry_ids: entryIds, transaction_ids: transactionIds },
    preconditions,
    warnings: [],
  };
  return decideWithPending(books.pending, staged);
}
