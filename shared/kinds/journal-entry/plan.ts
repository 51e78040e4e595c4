// Staging a journal entry (docs/reference/http-api.md "Journal entry stage"): the checks in their
// contractual order, the entry's derived id, and the plan a bookkeeper approves. Pure: the worker
// loads the books and the pending locks (worker/kinds/journal-entry/stage.ts), this decides.
import { derivedId } from '../../ids.js';
import { warning } from '../../warnings.js';
import { unknownAccounts } from '../../domain/chart-of-accounts.js';
import {
  compareIds,
  openAmountMinor,
  type BankAccount,
  type BankLink,
  type BankTransaction,
  type IsoDate,
  type LedgerEntry,
  type Org,
  type Precondition,
  type VersionedLedgerAccount,
} from '../../domain/books.js';
import { refused, type Decision, type RefusedDecision } from '../../domain/decision.js';
import type { VersionedInboxDocument } from '../../domain/books.js';
import { canonicalJson, planHash } from '../../domain/plan-hash.js';
import { inClosedPeriod, type PeriodLocked } from '../../domain/preconditions.js';
import { pendingDecision, type PendingHolder } from '../../domain/pending-gate.js';
import type { JournalEntryStageInput } from './schema.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A line of the planned entry, with its account's name in the chart (null: no chart, or not in it). */
export interface PlannedLine {
  account: string;
  account_name: string | null;
  debit_minor: number;
  credit_minor: number;
}

/** The bank transaction an entry books: the link apply creates, and what the transaction had linked before. */
export interface PlannedBankLink {
  bank_transaction_id: string;
  bank_account_id: string;
  /** The transaction's signed amount. */
  transaction_amount_minor: number;
  /** Σ of its links before this entry. */
  linked_before_minor: number;
  /** What it has left unlinked: the link's amount, and what the entry's settlement lines settle. */
  amount_minor: number;
}

export interface JournalEntryPlan {
  /** `le_` + 24 hex of SHA-256 over the org id and the request without `note` (journalEntryId). */
  ledger_entry_id: string;
  entry: {
    entry_date: IsoDate;
    description: string;
    reference: string;
    counterparty_id: string;
    currency: string;
    lines: PlannedLine[];
  };
  debit_total_minor: number;
  credit_total_minor: number;
  /** Σ(debit − credit) of its lines on the settlement accounts (the entry read's open amount). */
  settlement_minor: number;
  bank_link: PlannedBankLink | null;
  /** The inbox document applying marks `booked` with this entry's id. */
  document_id: string | null;
  note: string | null;
}

export interface JournalEntryBooks {
  org: Org;
  /** The organisation's chart of accounts; empty when it has none (any code is accepted). */
  chart: readonly VersionedLedgerAccount[];
  /** Every bank account of the organisation (their `ledger_account` codes take no entry lines). */
  bank_accounts: readonly BankAccount[];
  /** The requested bank transaction when it is the organisation's; null when absent or not found. */
  transaction: BankTransaction | null;
  /** Its links. */
  transaction_links: readonly BankLink[];
  /** The requested inbox document when it is the organisation's; null when absent or not found. */
  document: VersionedInboxDocument | null;
  /** Whether an entry with the derived id is already in the books. */
  entry_exists: boolean;
  /** Posted entries of the request's counterparty with its reference (the duplicate warning's candidates). */
  same_reference: readonly LedgerEntry[];
  /** Pending operations holding the entry id, the transaction or the document. */
  pending: readonly PendingHolder[];
}

export type JournalEntryDecision = Decision<JournalEntryPlan>;

/** The request as the entry id hashes it: the body without `note`. */
export type EntryIdBody = Omit<JournalEntryStageInput, 'note'>;

/**
 * The entry's id, derived from the request (docs/reference/http-api.md "Journal entry stage"): `le_` and the
 * first 24 hex digits of SHA-256 over `ORG:` and the RFC 8785 canonical JSON of the body without `note`, so a
 * dry run and the staging name the same entry, and the same booking staged twice names it twice.
 */
export function journalEntryId(orgId: string, body: JournalEntryStageInput): string {
  const { note: _note, ...rest } = body;
  return derivedId('le', `${orgId}:${canonicalJson(rest)}`);
}

export const journalEntrySubjectKey = (entryId: string): string => `journal_entry:${entryId}`;

/** Σ of non-negative safe integers, exact; null when it passes 2^53 − 1. */
function exactSum(values: readonly number[]): number | null {
  let total = 0n;
  for (const v of values) total += BigInt(v);
  return total > MAX_SAFE ? null : Number(total);
}

/** The lines' own rules: at least two, each with exactly one side above 0 (`invalid_lines`), then balanced. */
export function checkLines(
  lines: readonly { debit_minor: number; credit_minor: number }[],
): RefusedDecision | { debit_total_minor: number; credit_total_minor: number } {
  const invalid = lines.flatMap((l, i) => (l.debit_minor > 0 === l.credit_minor > 0 ? [i] : []));
  if (lines.length < 2 || invalid.length > 0)
    return refused('invalid_lines', { line_count: lines.length, invalid_line_indexes: invalid });
  const debit = exactSum(lines.map((l) => l.debit_minor));
  const credit = exactSum(lines.map((l) => l.credit_minor));
  if (debit === null || credit === null)
    return refused('amount_out_of_range', {
      field: debit === null ? 'Σ debit_minor' : 'Σ credit_minor',
      max_minor: Number.MAX_SAFE_INTEGER,
    });
  if (debit !== credit) return refused('unbalanced_entry', { debit_total_minor: debit, credit_total_minor: credit });
  return { debit_total_minor: debit, credit_total_minor: credit };
}

/** What a transaction has left unlinked: |amount| − Σ of its links (never below 0). */
export function unlinkedMinor(transaction: Pick<BankTransaction, 'id' | 'amount_minor'>, links: readonly BankLink[]) {
  const linked = links.filter((l) => l.bank_transaction_id === transaction.id).reduce((s, l) => s + l.amount_minor, 0);
  return { linked_minor: linked, unlinked_minor: Math.max(0, Math.abs(transaction.amount_minor) - linked) };
}

/**
 * Decide a journal entry. The checks run in the order of docs/reference/http-api.md "Journal entry stage";
 * the first failing one is answered. A pending holder of the entry id, the transaction or the document is a
 * conflict even when it holds the very same plan: one booking is staged once.
 */
export function decideJournalEntry(
  books: JournalEntryBooks,
  request: JournalEntryStageInput,
  entryId: string,
): JournalEntryDecision {
  const { org } = books;
  const lines = checkLines(request.lines);
  if ('outcome' in lines) return lines;

  const codes = request.lines.map((l) => l.account);
  const unknown = unknownAccounts(books.chart, codes);
  if (unknown.length > 0) return refused('unknown_account', { accounts: unknown });

  const allowed = [...new Set([org.base_currency, ...(books.transaction ? [books.transaction.currency] : [])])];
  if (!allowed.includes(request.currency))
    return refused('currency_mismatch', { currency: request.currency, allowed_currencies: allowed.sort(compareIds) });

  if (inClosedPeriod(request.entry_date, org.lock_date))
    return refused('period_locked', { entry_date: request.entry_date, lock_date: org.lock_date });

  const bankCodes = new Map(books.bank_accounts.map((a) => [a.ledger_account, a.id]));
  const onBank = [...new Set(codes.filter((c) => bankCodes.has(c)))].sort(compareIds);
  if (onBank.length > 0)
    return refused('posts_to_bank_account', {
      accounts: onBank,
      bank_account_ids: [...new Set(onBank.map((c) => bankCodes.get(c)!))].sort(compareIds),
    });

  const settlement = openAmountMinor({ lines: request.lines }, org.settlement_accounts);
  let bankLink: PlannedBankLink | null = null;
  if (request.bank_transaction_id !== undefined) {
    const txn = books.transaction;
    if (!txn) return refused('not_found', { resource: 'Bank transaction', id: request.bank_transaction_id });
    const { linked_minor, unlinked_minor } = unlinkedMinor(txn, books.transaction_links);
    if (unlinked_minor === 0)
      return refused('transaction_fully_linked', {
        bank_transaction_id: txn.id,
        amount_minor: txn.amount_minor,
        linked_minor,
      });
    // Money in settles a receivable (a debit on a settlement account), money out a payable (a credit).
    const expected = txn.amount_minor > 0 ? unlinked_minor : -unlinked_minor;
    if (settlement !== expected)
      return refused('settlement_line_mismatch', {
        bank_transaction_id: txn.id,
        expected_settlement_minor: expected,
        settlement_minor: settlement,
        settlement_accounts: [...org.settlement_accounts],
      });
    bankLink = {
      bank_transaction_id: txn.id,
      bank_account_id: txn.bank_account_id,
      transaction_amount_minor: txn.amount_minor,
      linked_before_minor: linked_minor,
      amount_minor: unlinked_minor,
    };
  }

  if (request.document_id !== undefined) {
    const doc = books.document;
    if (!doc) return refused('not_found', { resource: 'Inbox document', id: request.document_id });
    if (doc.status !== 'open') return refused('document_not_open', { document_id: doc.id, status: doc.status });
  }

  if (books.entry_exists) return refused('entry_exists', { ledger_entry_id: entryId });

  if (books.pending.length > 0) return pendingDecision(books.pending, null);

  const names = new Map(books.chart.map((a) => [a.code, a.name]));
  const plan: JournalEntryPlan = {
    ledger_entry_id: entryId,
    entry: {
      entry_date: request.entry_date,
      description: request.description,
      reference: request.reference,
      counterparty_id: request.counterparty_id,
      currency: request.currency,
      lines: request.lines.map((l) => ({
        account: l.account,
        account_name: names.get(l.account) ?? null,
        debit_minor: l.debit_minor,
        credit_minor: l.credit_minor,
      })),
    },
    debit_total_minor: lines.debit_total_minor,
    credit_total_minor: lines.credit_total_minor,
    settlement_minor: settlement,
    bank_link: bankLink,
    document_id: request.document_id ?? null,
    note: request.note ?? null,
  };
  const preconditions: Precondition[] = [{ collection: 'orgs', id: org.id, version: org.version }];
  // Each line's account as staged: one closed (or renamed) since makes the plan stale, so apply never posts to an
  // account the chart no longer holds active (docs/guide/importing-books.md "Chart of accounts").
  const used = new Set(codes);
  for (const a of [...books.chart].filter((a) => used.has(a.code)).sort((a, b) => compareIds(a.code, b.code)))
    preconditions.push({ collection: 'ledger_accounts', id: a.id, version: a.version });
  if (books.transaction && bankLink) {
    preconditions.push({
      collection: 'bank_transactions',
      id: books.transaction.id,
      version: books.transaction.version,
    });
    for (const l of [...books.transaction_links].sort((a, b) => compareIds(a.id, b.id)))
      preconditions.push({ collection: 'bank_links', id: l.id, version: l.version });
  }
  if (books.document && plan.document_id !== null)
    preconditions.push({ collection: 'inbox_documents', id: books.document.id, version: books.document.version });

  const duplicates = books.same_reference
    .filter(
      (e) =>
        e.status === 'posted' &&
        e.id !== entryId &&
        e.counterparty_id === request.counterparty_id &&
        e.reference === request.reference &&
        openAmountMinor(e, org.settlement_accounts) === settlement,
    )
    .map((e) => e.id)
    .sort(compareIds);
  return {
    outcome: 'staged',
    plan,
    plan_hash: planHash(plan),
    locks: journalEntryLocks(entryId, request),
    preconditions,
    warnings:
      duplicates.length > 0
        ? [
            warning('possible_duplicate_entry', {
              ledger_entry_ids: duplicates,
              counterparty_id: request.counterparty_id,
              reference: request.reference,
              settlement_minor: settlement,
            }),
          ]
        : [],
  };
}

/** The plan locks a journal entry takes: its id, the transaction it books and the document it attaches. */
export function journalEntryLocks(
  entryId: string,
  request: Pick<JournalEntryStageInput, 'bank_transaction_id' | 'document_id'>,
) {
  return {
    subject_key: journalEntrySubjectKey(entryId),
    entry_ids: [entryId],
    transaction_ids: request.bank_transaction_id === undefined ? [] : [request.bank_transaction_id],
    document_ids: request.document_id === undefined ? [] : [request.document_id],
    same_plan_conflicts: true,
  };
}

/**
 * Apply's lock-date check (docs/design/staged-lifecycle.md "Closed periods"): the `stale_plan` details when the
 * lock date now covers the entry's date, which staging found open; else null.
 */
export function lockedJournalEntry(
  plan: Pick<JournalEntryPlan, 'ledger_entry_id' | 'entry'>,
  lockDate: IsoDate | null,
): PeriodLocked | null {
  if (lockDate === null || !inClosedPeriod(plan.entry.entry_date, lockDate)) return null;
  return {
    reason: 'period_locked',
    lock_date: lockDate,
    ledger_entry_id: plan.ledger_entry_id,
    entry_date: plan.entry.entry_date,
  };
}
