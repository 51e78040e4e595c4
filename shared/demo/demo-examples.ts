// One example of every case the demo books hold (docs/guide/quick-start.md),
// found in the books themselves rather than guessed: a repair that moves
// links, one that is blocked, one with nothing to do; a statement that
// reconciles and one failing each reconciliation check (docs/reference/http-api.md §7,
// in order); an entry that can be reversed and one already reversed; what a
// statement import of a sample file would answer. Pure: `npm start` passes
// what is stored, the tests pass the generated file.
import { createHash } from 'node:crypto';
import type { BankAccount, BankLink, BankTransaction, IsoDate, LedgerEntry, Org } from '../domain/books.js';
import { compareIds } from '../domain/books.js';
import type { BooksFile } from '../domain/books-file.js';
import {
  planLinkRepair,
  repairSubjectKey,
  type LinkRepairBlocker,
  type LinkRepairInput,
} from '../kinds/ledger-link-repair/plan.js';
import { reconcileSubjectKey, type ReconciliationRequest } from '../kinds/bank-reconcile/plan.js';
import { reversalSubjectKey } from '../kinds/ledger-reversal/plan.js';
import { parseStatementFile } from '../kinds/statement-import/parse.js';
import { decideStatementImport } from '../kinds/statement-import/plan.js';
import { groupBy } from '../group-by.js';

export interface DemoBooks {
  org: Org;
  accounts: BankAccount[];
  transactions: BankTransaction[];
  entries: LedgerEntry[];
  links: BankLink[];
}

export interface RepairExample {
  bank_account_id: string;
  counterparty_id: string;
  moves: number;
  actions: number;
  blockers: LinkRepairBlocker[];
  /** What staging it holds (its subject key and the ids its actions name): later examples of the same printout stay clear of it. */
  holds: string[];
}

/** The reconciliation refusals in the order they are checked (docs/reference/http-api.md §7). */
export const RECONCILE_FAILURES = [
  'not_found',
  'currency_mismatch',
  'statement_before_last_reconciliation',
  'unknown_transactions',
  'already_reconciled',
  'transaction_after_statement_end',
  'unmatched_transactions',
  'out_of_balance',
] as const;
export type ReconcileFailure = (typeof RECONCILE_FAILURES)[number];

export interface DemoExamples {
  repair: { moves: RepairExample | null; blocked: RepairExample | null; noop: RepairExample | null };
  reconcile: { ok: ReconciliationRequest | null; failing: Partial<Record<ReconcileFailure, ReconciliationRequest>> };
  reversal: {
    /** Posted, after the lock date, no reconciled link; the one with the most links (the plan unlinks them). */
    reversible: string | null;
    already_reversed: string | null;
  };
}

/** A books file as the domain reads it after import: every record at version 1. */
export function demoBooksFromFile(file: BooksFile): DemoBooks {
  const v = <T extends object>(r: T): T & { version: number } => ({ ...r, version: 1 });
  return {
    org: v(file.org),
    accounts: file.bank_accounts.map(v),
    transactions: file.bank_transactions.map((t) => v({ ...t, reconciliation_id: t.reconciliation_id ?? null })),
    entries: file.ledger_entries.map((e) =>
      v({ ...e, reversal_of: e.reversal_of ?? null, reversed_by: e.reversed_by ?? null }),
    ),
    links: file.bank_links.map(v),
  };
}

/**
 * What the pending operations of earlier runs hold: their subject keys and every
 * id their plans name. An example that would stage over any of it answers 409
 * `pending_operation`, so it is not chosen (docs/guide/quick-start.md: the printed
 * examples answer as annotated on every start).
 */
export type HeldByPending = ReadonlySet<string>;

/**
 * What README.md's "Reconcile a statement, CLI only" walk-through stages on
 * the demo organisation: a statement of this account clearing these
 * transactions (test/admin/readme-walkthrough.test.ts checks that the README
 * names exactly these).
 */
export const README_WALKTHROUGH = {
  bank_account_id: 'ba_org_demo_2',
  transaction_ids: ['bt_org_demo_0000289', 'bt_org_demo_0000290'],
} as const;

/**
 * Held for the README walk-through while its transactions are not all
 * reconciled: its reconciliation subject key and its transactions. The printed
 * examples stay clear of them, so that neither the examples nor the
 * walk-through ever answers the other 409 `pending_operation`, in whichever
 * order they are run and however often `npm start` restarts
 * (docs/guide/quick-start.md). Once the walk-through is applied nothing is held.
 */
export function heldForReadme(books: DemoBooks): string[] {
  const ids: readonly string[] = README_WALKTHROUGH.transaction_ids;
  const open = books.transactions.filter((t) => ids.includes(t.id) && t.status !== 'reconciled');
  return open.length === 0 ? [] : [reconcileSubjectKey(README_WALKTHROUGH.bank_account_id), ...ids];
}

/** A record id (`le_…`, `bt_…`, `lnk_…`): a plan's other strings (kinds, dates, names) hold nothing. */
const RECORD_ID = /^[a-z]{2,4}_[A-Za-z0-9]/;

/** The subject keys and the ids named by these pending operations' plans. */
export function heldByPending(pending: ReadonlyArray<{ scope_key: string; plan: unknown }>): HeldByPending {
  const held = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (RECORD_ID.test(value)) held.add(value);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  for (const op of pending) {
    held.add(op.scope_key);
    walk(op.plan);
  }
  return held;
}

/** `asOf`: the repair's as_of (the API's default is today, UTC). */
export function findDemoExamples(books: DemoBooks, asOf: IsoDate, heldBefore: HeldByPending = new Set()): DemoExamples {
  // The examples that stage are run one after another: each is chosen clear of what the ones before it hold,
  // and all of them clear of what the README's walk-through will stage.
  const held = new Set([...heldBefore, ...heldForReadme(books)]);
  const repair = repairExamples(books, asOf, held);
  for (const id of repair.moves?.holds ?? []) held.add(id);
  const reconcile = reconcileExamples(books, held);
  if (reconcile.ok) {
    held.add(reconcileSubjectKey(reconcile.ok.bank_account_id));
    for (const id of reconcile.ok.transaction_ids) held.add(id);
  }
  return { repair, reconcile, reversal: reversalExamples(books, held) };
}

// ---------------------------------------------------------------------------
// Repair: plan every account + counterparty pair, as the worker would.

function repairExamples(books: DemoBooks, asOf: IsoDate, held: HeldByPending): DemoExamples['repair'] {
  const out: DemoExamples['repair'] = { moves: null, blocked: null, noop: null };
  const entryById = new Map(books.entries.map((e) => [e.id, e]));
  const entriesOf = groupBy(books.entries, (e) => e.counterparty_id);
  const linksOfTxn = groupBy(books.links, (l) => l.bank_transaction_id);
  const linksOfEntry = groupBy(books.links, (l) => l.ledger_entry_id);
  const pairs = groupBy(books.transactions, (t) => `${t.bank_account_id} ${t.counterparty_id}`);
  let noopHasBoth = false;
  for (const key of [...pairs.keys()].sort(compareIds)) {
    const transactions = pairs.get(key)!;
    const [accountId, counterpartyId] = key.split(' ') as [string, string];
    if (held.has(repairSubjectKey(accountId, counterpartyId))) continue;
    const account = books.accounts.find((a) => a.id === accountId);
    if (!account) continue;
    const own = entriesOf.get(counterpartyId) ?? [];
    const links = new Map<string, BankLink>();
    for (const t of transactions) for (const l of linksOfTxn.get(t.id) ?? []) links.set(l.id, l);
    for (const e of own) for (const l of linksOfEntry.get(e.id) ?? []) links.set(l.id, l);
    const referenced = [...links.values()]
      .map((l) => entryById.get(l.ledger_entry_id))
      .filter((e): e is LedgerEntry => e !== undefined && e.counterparty_id !== counterpartyId);
    const input: LinkRepairInput = {
      account,
      counterparty_id: counterpartyId,
      as_of: asOf,
      settlement_accounts: books.org.settlement_accounts,
      transactions,
      entries: [...own, ...referenced],
      links: [...links.values()],
    };
    let result;
    try {
      result = planLinkRepair(input);
    } catch {
      continue; // a pair whose books are incomplete here is no example
    }
    const actions = result.plan?.actions ?? [];
    if (actions.some((a) => Object.values(a).some((v) => typeof v === 'string' && held.has(v)))) continue;
    const example: RepairExample = {
      bank_account_id: accountId,
      counterparty_id: counterpartyId,
      moves: actions.filter((a) => a.kind === 'move').length,
      actions: actions.length,
      blockers: result.blockers,
      holds: [
        repairSubjectKey(accountId, counterpartyId),
        ...actions.flatMap((a) =>
          Object.values(a).filter((v): v is string => typeof v === 'string' && RECORD_ID.test(v)),
        ),
      ],
    };
    if (result.outcome === 'blocked') out.blocked ??= example;
    else if (result.outcome === 'noop') {
      if (!out.noop || (!noopHasBoth && hasBoth(transactions))) {
        out.noop = example;
        noopHasBoth = hasBoth(transactions);
      }
    } else if (example.moves > 0 && (!out.moves || example.moves > out.moves.moves)) out.moves = example;
  }
  return out;
}

/** Reconciled history and open work both in scope: the noop worth showing. */
function hasBoth(transactions: BankTransaction[]): boolean {
  return transactions.some((t) => t.status === 'reconciled') && transactions.some((t) => t.status === 'unreconciled');
}

// ---------------------------------------------------------------------------
// Reconciliation: a statement clearing the fully linked stretch right after
// the account's last reconciliation, and that statement bent to fail each check.

const MAX_STATEMENT_TRANSACTIONS = 10;

function reconcileExamples(books: DemoBooks, held: HeldByPending): DemoExamples['reconcile'] {
  const failing: DemoExamples['reconcile']['failing'] = {};
  const linked = new Map<string, number>();
  for (const l of books.links)
    linked.set(l.bank_transaction_id, (linked.get(l.bank_transaction_id) ?? 0) + l.amount_minor);
  const full = (t: BankTransaction): boolean => (linked.get(t.id) ?? 0) === Math.abs(t.amount_minor);

  for (const account of [...books.accounts].sort((a, b) => compareIds(a.id, b.id))) {
    if (held.has(reconcileSubjectKey(account.id))) continue;
    const own = books.transactions.filter((t) => t.bank_account_id === account.id).sort(byDateThenId);
    const open = own.filter((t) => t.status === 'unreconciled');
    // Whole days of fully linked transactions, from the first open one on.
    const cleared: BankTransaction[] = [];
    for (let i = 0; i < open.length;) {
      const day = open.filter((t) => t.booking_date === open[i]!.booking_date);
      if (!day.every(full) || cleared.length + day.length > MAX_STATEMENT_TRANSACTIONS) break;
      cleared.push(...day);
      i += day.length;
    }
    const next = open[cleared.length];
    if (cleared.some((t) => held.has(t.id))) continue;
    if (cleared.length === 0 || !next || !account.reconciled_through) continue;
    const opening = account.reconciled_through.balance_minor;
    const statementFor = (txns: BankTransaction[], reference: string): ReconciliationRequest => ({
      bank_account_id: account.id,
      statement: {
        end_date: txns[txns.length - 1]!.booking_date,
        closing_balance_minor: opening + txns.reduce((s, t) => s + t.amount_minor, 0),
        currency: account.currency,
        reference,
      },
      transaction_ids: txns.map((t) => t.id),
    });
    const ok = statementFor(cleared, `demo statement ${account.id}`);
    const bent = (change: (r: ReconciliationRequest) => void): ReconciliationRequest => {
      const r = structuredClone(ok);
      change(r);
      return r;
    };
    failing.not_found = bent((r) => {
      r.bank_account_id = `${account.id}_missing`;
    });
    failing.currency_mismatch = bent((r) => {
      r.statement.currency = account.currency === 'USD' ? 'EUR' : 'USD';
    });
    failing.statement_before_last_reconciliation = bent((r) => {
      r.statement.end_date = dayBefore(account.reconciled_through!.date);
    });
    const elsewhere = books.transactions.find((t) => t.bank_account_id !== account.id);
    if (elsewhere)
      failing.unknown_transactions = bent((r) => {
        r.transaction_ids.push(elsewhere.id);
      });
    const done = own.filter((t) => t.status === 'reconciled');
    if (done.length > 0)
      failing.already_reconciled = bent((r) => {
        r.transaction_ids.push(done[done.length - 1]!.id);
      });
    const later = open.find((t) => t.booking_date > ok.statement.end_date);
    if (later)
      failing.transaction_after_statement_end = bent((r) => {
        r.transaction_ids.push(later.id);
      });
    // Up to and including the first open transaction that is not fully linked.
    const firstUnmatched = open.findIndex((t) => !full(t));
    if (firstUnmatched >= 0) {
      const upTo = open.filter((t) => t.booking_date <= open[firstUnmatched]!.booking_date);
      failing.unmatched_transactions = statementFor(upTo.slice(0, 10_000), `demo statement ${account.id} (unmatched)`);
    }
    failing.out_of_balance = bent((r) => {
      r.statement.closing_balance_minor += 100;
    });
    return { ok, failing };
  }
  return { ok: null, failing };
}

// ---------------------------------------------------------------------------
// Reversal

function reversalExamples(books: DemoBooks, held: HeldByPending): DemoExamples['reversal'] {
  const status = new Map(books.transactions.map((t) => [t.id, t.status]));
  const linksOf = groupBy(books.links, (l) => l.ledger_entry_id);
  const lock = books.org.lock_date ?? '';
  let reversible: { id: string; links: number } | null = null;
  for (const e of [...books.entries].sort((a, b) => compareIds(a.id, b.id))) {
    if (e.status !== 'posted' || e.reversal_of || e.reversed_by || e.entry_date <= lock) continue;
    if (held.has(e.id) || held.has(reversalSubjectKey(e.id))) continue;
    const links = linksOf.get(e.id) ?? [];
    if (links.some((l) => status.get(l.bank_transaction_id) === 'reconciled' || held.has(l.bank_transaction_id)))
      continue;
    if (!reversible || links.length > reversible.links) reversible = { id: e.id, links: links.length };
  }
  const reversed = books.entries
    .filter((e) => e.status === 'reversed' || e.reversed_by)
    .sort((a, b) => compareIds(a.id, b.id))[0];
  return { reversible: reversible?.id ?? null, already_reversed: reversed?.id ?? null };
}

// ---------------------------------------------------------------------------
// Statement import: what a dry run of a sample file answers, decided by the
// worker's own rule (docs/guide/statement-import.md) on the account as stored.

export interface ImportExample {
  bank_account_id: string;
  /** A dry run's outcome: `staged` while some entry of the file is new to the account, `noop` once all are on it. */
  outcome: 'staged' | 'noop';
  new_transactions: number;
  skipped: number;
}

/** null when the file cannot be imported into the account at all (not found, unreadable, another account's). */
export function statementImportExample(
  books: DemoBooks,
  bankAccountId: string,
  file: Uint8Array,
): ImportExample | null {
  const account = books.accounts.find((a) => a.id === bankAccountId);
  if (!account) return null;
  let parsed;
  try {
    parsed = parseStatementFile(file, {
      format: 'auto',
      encoding: null,
      csv: null,
      account_currency: account.currency,
    });
  } catch {
    return null;
  }
  const transactions = books.transactions
    .filter((t) => t.bank_account_id === bankAccountId)
    .map((t) => ({
      id: t.id,
      booking_date: t.booking_date,
      amount_minor: t.amount_minor,
      bank_reference: t.bank_reference ?? null,
      counterparty_name: t.counterparty_name ?? null,
      remittance_info: t.remittance_info ?? null,
    }));
  // A dry run answers as if its keys were free (docs/reference/http-api.md §6.6): no pending holders.
  const decision = decideStatementImport(parsed, createHash('sha256').update(file).digest('hex'), {
    account,
    transactions,
    counterparties: [],
    pending: [],
    lock_date: books.org.lock_date,
  });
  if (decision.outcome !== 'staged' && decision.outcome !== 'noop') return null;
  return {
    bank_account_id: bankAccountId,
    outcome: decision.outcome,
    new_transactions: decision.plan.new_transactions.length,
    skipped: decision.plan.skipped.length,
  };
}

// ---------------------------------------------------------------------------

function byDateThenId(a: BankTransaction, b: BankTransaction): number {
  return compareIds(a.booking_date, b.booking_date) || compareIds(a.id, b.id);
}

function dayBefore(date: IsoDate): IsoDate {
  return new Date(Date.parse(date) - 86_400_000).toISOString().slice(0, 10);
}
