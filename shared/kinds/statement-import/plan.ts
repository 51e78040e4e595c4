// The statement import decision (docs/guide/statement-import.md): which statements
// of a parsed file belong to the account, which entries are new and which are
// already on the books (the two duplicate rules), and the plan a bookkeeper
// approves. Pure: the worker parses the file and loads the books, this decides.
import { createHash } from 'node:crypto';
import type { BankAccount, IsoDate } from '../../domain/books.js';
import { compareIds } from '../../domain/books.js';
import { refused, type Decision, type RefusedDecision } from '../../domain/decision.js';
import { planHash } from '../../domain/plan-hash.js';
import { decideWithPending, type PendingHolder } from '../../domain/pending-gate.js';
import { warning, type Warning } from '../../warnings.js';
import type { ParsedStatement, ParsedStatementFile, StatementEntry, StatementFormat } from './model.js';

/** A transaction already on the account, as the duplicate rules read it. */
export interface ExistingTransaction {
  id: string;
  booking_date: IsoDate;
  amount_minor: number;
  bank_reference: string | null;
  counterparty_name: string | null;
  remittance_info: string | null;
}

/** A counterparty the books know, with the IBANs seen for it. */
export interface KnownCounterparty {
  id: string;
  name: string;
  ibans: string[];
}

export interface StatementImportBooks {
  /** null when the account does not exist in this organisation. */
  account: BankAccount | null;
  /** Every transaction of the account. */
  transactions: ExistingTransaction[];
  counterparties: KnownCounterparty[];
  /** Pending operations holding the account's import subject key. */
  pending: PendingHolder[];
  /** The organisation's lock date: entries booked on or before it are skipped (`period_locked`). */
  lock_date: IsoDate | null;
  /**
   * Of the file's transaction ids (fileTransactionIds), those a record held before, which a revert removed: the
   * highest version ever reserved on each (docs/design/staged-lifecycle.md "Reverts"). Absent: none.
   */
  returning?: ReadonlyMap<string, number>;
}

export type SkipReason = 'same_bank_reference' | 'same_fingerprint' | 'period_locked';

/** A new bank transaction of the plan: the statement's entry as booked, with its deterministic id and matched counterparty. */
export type PlannedTransaction = Omit<StatementEntry, 'pending'> & {
  id: string;
  counterparty_id: string | null;
  /** Only for a transaction that returns under an id a revert removed: the version it is inserted at, above every one it had. */
  version?: number;
};

export interface SkippedEntry {
  booking_date: IsoDate;
  amount_minor: number;
  bank_reference: string | null;
  reason: SkipReason;
  /** The transaction it duplicates; null for `period_locked`. */
  existing_transaction_id: string | null;
}

/** The plan lock of an account's imports: one pending import per account. */
export const statementImportSubjectKey = (bankAccountId: string): string => `statement_import:${bankAccountId}`;

export interface StatementImportPlan {
  bank_account_id: string;
  format: StatementFormat;
  file_sha256: string;
  statements: {
    reference: string;
    start_date: IsoDate | null;
    end_date: IsoDate | null;
    opening_balance_minor: number | null;
    closing_balance_minor: number | null;
    currency: string;
  }[];
  new_transactions: PlannedTransaction[];
  skipped: SkippedEntry[];
}

/** IBANs and account numbers compare without spaces and case. */
export const compactAccountId = (id: string): string => id.replace(/\s/g, '').toUpperCase();

/** Free text as the duplicate and counterparty rules compare it: NFKC, lower case, one space between words. */
export function normaliseText(text: string | null): string {
  return (text ?? '').normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** A counterparty name as it is matched: normalised text with punctuation dropped. */
export function normaliseName(name: string | null): string {
  return normaliseText(name)
    .replace(/[^\p{L}\p{N} ]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Duplicate rule 2's fingerprint: booking date, amount, counterparty and remittance text. */
export function fingerprint(t: {
  booking_date: IsoDate;
  amount_minor: number;
  counterparty_name: string | null;
  remittance_info: string | null;
}): string {
  return JSON.stringify([
    t.booking_date,
    t.amount_minor,
    normaliseText(t.counterparty_name),
    normaliseText(t.remittance_info),
  ]);
}

/** Whether a file's statement names this account (IBAN or number; for `BLZ/number` forms also the number alone). */
function namesAccount(statement: ParsedStatement, account: BankAccount): boolean {
  if (statement.account === null) return true;
  const own = [account.iban, account.account_number]
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .map(compactAccountId);
  const given = [statement.account.iban, statement.account.account_number]
    .filter((v): v is string => v !== null)
    .map(compactAccountId);
  for (const id of [...given]) if (id.includes('/')) given.push(id.slice(id.lastIndexOf('/') + 1));
  return given.some((id) => own.includes(id));
}

/** `amount_out_of_range` when `value` is beyond ±(2^53 − 1), as the reconciliation refuses its total. */
function outOfRange(field: string, value: bigint): RefusedDecision | null {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  if (value <= max && value >= -max) return null;
  return refused('amount_out_of_range', { field, value_minor: value.toString(), max_minor: Number.MAX_SAFE_INTEGER });
}

function newTransactionId(accountId: string, fileSha256: string, statementIndex: number, entryIndex: number): string {
  const digest = createHash('sha256')
    .update(`statement_import\n${accountId}\n${fileSha256}\n${statementIndex}\n${entryIndex}`)
    .digest('hex');
  return `bt_imp_${digest.slice(0, 24)}`;
}

/** Every id a new transaction of the file may take on the account, whichever entries turn out new (a superset). */
export function fileTransactionIds(file: ParsedStatementFile, accountId: string, fileSha256: string): string[] {
  return file.statements.flatMap((s, statementIndex) =>
    s.entries.map((_e, entryIndex) => newTransactionId(accountId, fileSha256, statementIndex, entryIndex)),
  );
}

function counterpartyMatcher(
  counterparties: readonly KnownCounterparty[],
): (name: string | null, iban: string | null) => string | null {
  const byIban = new Map<string, Set<string>>();
  const byName = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, key: string, id: string) => {
    if (key === '') return;
    const ids = map.get(key) ?? new Set<string>();
    ids.add(id);
    map.set(key, ids);
  };
  for (const cp of counterparties) {
    for (const iban of cp.ibans) add(byIban, compactAccountId(iban), cp.id);
    add(byName, normaliseName(cp.name), cp.id);
  }
  // An IBAN or name shared by two counterparties names neither: left null for the reviewer.
  const only = (ids: Set<string> | undefined) => (ids !== undefined && ids.size === 1 ? [...ids][0]! : null);
  return (name, iban) =>
    (iban === null ? null : only(byIban.get(compactAccountId(iban)))) ?? only(byName.get(normaliseName(name)));
}

/**
 * The decision for one parsed file on one account: refusals (`not_found`,
 * `account_mismatch`, `currency_mismatch`), `noop` when nothing is new,
 * else `staged`; behind the pending gate (one pending import per account).
 */
export function decideStatementImport(
  file: ParsedStatementFile,
  fileSha256: string,
  books: StatementImportBooks,
): Decision<StatementImportPlan> {
  const account = books.account;
  if (account === null) return refused('not_found', { resource: 'bank_account' });
  const ours = file.statements.map((s, index) => ({ s, index })).filter(({ s }) => namesAccount(s, account));
  const others = file.statements.filter((s) => !namesAccount(s, account));
  if (ours.length === 0) {
    const fileAccounts = [...new Set(others.map((s) => s.account?.iban ?? s.account?.account_number ?? ''))].sort(
      compareIds,
    );
    return refused('account_mismatch', {
      bank_account_id: account.id,
      account_iban: account.iban ?? null,
      account_number: account.account_number ?? null,
      file_accounts: fileAccounts,
    });
  }
  const wrongCurrency = ours.find(({ s }) => s.currency !== account.currency);
  if (wrongCurrency) {
    return refused('currency_mismatch', {
      account_currency: account.currency,
      statement_currency: wrongCurrency.s.currency,
      statement_reference: wrongCurrency.s.reference,
    });
  }
  const warnings: Warning[] = [];
  if (others.length > 0) {
    warnings.push(
      warning('other_account_statements_left_out', {
        statements: others.map((s) => ({
          reference: s.reference,
          account: s.account?.iban ?? s.account?.account_number ?? null,
        })),
      }),
    );
  }

  const entries: { e: StatementEntry; statementIndex: number; entryIndex: number }[] = [];
  let pending = 0;
  const foreign: { booking_date: IsoDate; amount_minor: number; currency: string; bank_reference: string | null }[] =
    [];
  const outOfBalance: {
    reference: string;
    opening_balance_minor: number;
    entries_minor: number;
    closing_balance_minor: number;
    difference_minor: number;
  }[] = [];
  const locked: SkippedEntry[] = [];
  for (const { s, index } of ours) {
    let sum = 0n;
    s.entries.forEach((e, entryIndex) => {
      if (e.pending) {
        pending += 1;
        return;
      }
      if (e.currency !== account.currency) {
        foreign.push({
          booking_date: e.booking_date,
          amount_minor: e.amount_minor,
          currency: e.currency,
          bank_reference: e.bank_reference,
        });
        return;
      }
      sum += BigInt(e.amount_minor);
      // A closed period takes no new transaction (docs/guide/statement-import.md "The decision").
      if (books.lock_date !== null && e.booking_date <= books.lock_date) {
        locked.push({
          booking_date: e.booking_date,
          amount_minor: e.amount_minor,
          bank_reference: e.bank_reference,
          reason: 'period_locked',
          existing_transaction_id: null,
        });
        return;
      }
      entries.push({ e, statementIndex: index, entryIndex });
    });
    if (s.opening_balance_minor !== null && s.closing_balance_minor !== null) {
      const difference = BigInt(s.closing_balance_minor) - (BigInt(s.opening_balance_minor) + sum);
      const unsafe =
        outOfRange(`statements[${index + 1}].entries_minor`, sum) ??
        outOfRange(`statements[${index + 1}].difference_minor`, difference);
      if (unsafe) return unsafe;
      if (difference !== 0n)
        outOfBalance.push({
          reference: s.reference,
          opening_balance_minor: s.opening_balance_minor,
          entries_minor: Number(sum),
          closing_balance_minor: s.closing_balance_minor,
          difference_minor: Number(difference),
        });
    }
  }
  if (pending > 0) warnings.push(warning('pending_entries_left_out', { count: pending }));
  if (foreign.length > 0) warnings.push(warning('foreign_currency_entries', { entries: foreign }));
  if (outOfBalance.length > 0) warnings.push(warning('statement_out_of_balance', { statements: outOfBalance }));
  const first = ours
    .map(({ s }) => s)
    .filter((s) => s.start_date !== null && s.opening_balance_minor !== null)
    .sort((a, b) => compareIds(a.start_date!, b.start_date!))[0];
  if (first !== undefined) {
    let balance = BigInt(account.opening_balance_minor);
    for (const t of books.transactions) if (t.booking_date < first.start_date!) balance += BigInt(t.amount_minor);
    const unsafe = outOfRange('account_balance_minor', balance);
    if (unsafe) return unsafe;
    if (balance !== BigInt(first.opening_balance_minor!)) {
      warnings.push(
        warning('opening_balance_differs', {
          statement_reference: first.reference,
          date: first.start_date,
          account_balance_minor: Number(balance),
          statement_opening_balance_minor: first.opening_balance_minor,
        }),
      );
    }
  }

  // Duplicate rule 1: the same bank reference as a transaction on the account.
  const existing = [...books.transactions].sort((a, b) => compareIds(a.id, b.id));
  const byReference = new Map<string, string>();
  for (const t of existing)
    if (t.bank_reference && !byReference.has(t.bank_reference)) byReference.set(t.bank_reference, t.id);
  const consumed = new Set<string>();
  const afterRule1: typeof entries = [];
  const skipped: SkippedEntry[] = [...locked];
  for (const item of entries) {
    const match = item.e.bank_reference === null ? undefined : byReference.get(item.e.bank_reference);
    if (match === undefined) {
      afterRule1.push(item);
      continue;
    }
    consumed.add(match);
    skipped.push({
      booking_date: item.e.booking_date,
      amount_minor: item.e.amount_minor,
      bank_reference: item.e.bank_reference,
      reason: 'same_bank_reference',
      existing_transaction_id: match,
    });
  }
  // Duplicate rule 2: k entries of one fingerprint against m transactions already holding it → max(0, k − m) new.
  // An entry and a transaction that both carry (different) bank references are different bookings and never pair.
  const pools = new Map<string, ExistingTransaction[]>();
  for (const t of existing) {
    if (consumed.has(t.id)) continue;
    const key = fingerprint(t);
    const pool = pools.get(key);
    if (pool) pool.push(t);
    else pools.set(key, [t]);
  }
  const matchCounterparty = counterpartyMatcher(books.counterparties);
  const newTransactions: PlannedTransaction[] = [];
  for (const { e, statementIndex, entryIndex } of afterRule1) {
    const pool = pools.get(fingerprint(e)) ?? [];
    const at =
      e.bank_reference === null
        ? Math.max(
            pool.findIndex((t) => t.bank_reference !== null),
            0,
          )
        : pool.findIndex((t) => t.bank_reference === null);
    const pair = at >= 0 ? pool[at] : undefined;
    if (pair !== undefined) {
      pool.splice(at, 1);
      skipped.push({
        booking_date: e.booking_date,
        amount_minor: e.amount_minor,
        bank_reference: e.bank_reference,
        reason: 'same_fingerprint',
        existing_transaction_id: pair.id,
      });
      continue;
    }
    const id = newTransactionId(account.id, fileSha256, statementIndex, entryIndex);
    const returning = books.returning?.get(id);
    newTransactions.push({
      id,
      booking_date: e.booking_date,
      value_date: e.value_date,
      amount_minor: e.amount_minor,
      currency: e.currency,
      bank_reference: e.bank_reference,
      counterparty_name: e.counterparty_name,
      counterparty_iban: e.counterparty_iban,
      counterparty_id: matchCounterparty(e.counterparty_name, e.counterparty_iban),
      remittance_info: e.remittance_info,
      details: e.details,
      // Versions never go back: a transaction a revert removed returns above the version it had.
      ...(returning === undefined ? {} : { version: returning + 1 }),
    });
  }

  // The totals a reviewer reads and the account's balance after the apply are exact numbers, or refused.
  let newTotal = 0n;
  for (const t of newTransactions) newTotal += BigInt(t.amount_minor);
  let balanceAfter = BigInt(account.opening_balance_minor) + newTotal;
  for (const t of books.transactions) balanceAfter += BigInt(t.amount_minor);
  const unsafe = outOfRange('new_total_minor', newTotal) ?? outOfRange('balance_after_minor', balanceAfter);
  if (unsafe) return unsafe;

  const plan: StatementImportPlan = {
    bank_account_id: account.id,
    format: file.format,
    file_sha256: fileSha256,
    statements: ours.map(({ s }) => ({
      reference: s.reference,
      start_date: s.start_date,
      end_date: s.end_date,
      opening_balance_minor: s.opening_balance_minor,
      closing_balance_minor: s.closing_balance_minor,
      currency: s.currency,
    })),
    new_transactions: newTransactions,
    skipped,
  };
  const hash = planHash(plan);
  if (newTransactions.length === 0)
    return decideWithPending(books.pending, { outcome: 'noop', plan, plan_hash: hash, warnings });
  return decideWithPending(books.pending, {
    outcome: 'staged',
    plan,
    plan_hash: hash,
    warnings,
    locks: { subject_key: statementImportSubjectKey(account.id), entry_ids: [], transaction_ids: [] },
    preconditions: [],
  });
}
