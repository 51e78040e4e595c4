// What each posted entry has left open on the settlement accounts once its
// links are taken off (docs/design/entry-open-amounts.md): the rows the match
// suggestions read as their candidates instead of every entry and link of
// the organisation. Pure: the worker reads the records and writes the rows
// (shared/storage/entry-open-amounts.ts).
import type { JournalWrite } from './apply-journal.js';
import type { BankLink, LedgerEntry } from './books.js';
import { isSettleable, openAmountMinor } from './books.js';

/** Money in settles receivables (open amount > 0), money out payables (< 0). */
export type OpenDirection = 'in' | 'out';

/** One open entry: stored only while its links leave something of it open. */
export interface EntryOpenAmount {
  id: string;
  currency: string;
  direction: OpenDirection;
  /** |open amount| − Σ its links, > 0 (the entry read's `open` rule). */
  open_minor: number;
  /** Signed, on the settlement accounts (shared/domain/books.ts openAmountMinor). */
  open_amount_minor: number;
  counterparty_id: string;
  entry_date: string;
  reference: string;
}

export type OpenAmountEntry = Pick<
  LedgerEntry,
  'id' | 'status' | 'entry_date' | 'reference' | 'counterparty_id' | 'currency' | 'lines'
> &
  Partial<Pick<LedgerEntry, 'reversal_of'>>;

/**
 * The open rows of `entries`: a posted entry with an open amount on the
 * settlement accounts that its links (`linked`: Σ link amounts per entry id)
 * do not cover. Entries with nothing open have no row, nor has a reversing
 * entry (books.ts `isSettleable`).
 */
export function openAmountRows(
  entries: readonly OpenAmountEntry[],
  linked: ReadonlyMap<string, number>,
  settlementAccounts: readonly string[],
): EntryOpenAmount[] {
  const rows: EntryOpenAmount[] = [];
  for (const e of entries) {
    if (!isSettleable(e)) continue;
    const row = openRow(e, openAmountMinor(e, settlementAccounts), linked.get(e.id) ?? 0);
    if (row) rows.push(row);
  }
  return rows;
}

/**
 * The rows of entries that had a row and were not written since: a row
 * carries every field of its entry the rule reads (the open amount for the
 * lines), so only Σ links can have moved. The same rows openAmountRows gives
 * from those entries.
 */
export function reopenedRows(
  stored: readonly EntryOpenAmount[],
  linked: ReadonlyMap<string, number>,
): EntryOpenAmount[] {
  const rows: EntryOpenAmount[] = [];
  for (const r of stored) {
    const row = openRow(r, r.open_amount_minor, linked.get(r.id) ?? 0);
    if (row) rows.push(row);
  }
  return rows;
}

type RowFields = Pick<EntryOpenAmount, 'id' | 'currency' | 'counterparty_id' | 'entry_date' | 'reference'>;

/** A posted entry's row: null while nothing is open beyond its links. */
function openRow(e: RowFields, open: number, linked: number): EntryOpenAmount | null {
  if (open === 0) return null;
  const left = Math.abs(open) - linked;
  if (left <= 0) return null;
  return {
    id: e.id,
    currency: e.currency,
    direction: open > 0 ? 'in' : 'out',
    open_minor: left,
    open_amount_minor: open,
    counterparty_id: e.counterparty_id,
    entry_date: e.entry_date,
    reference: e.reference,
  };
}

/** Σ link amounts per entry. */
export function linkedByEntry(
  links: ReadonlyArray<Pick<BankLink, 'ledger_entry_id' | 'amount_minor'>>,
): Map<string, number> {
  const linked = new Map<string, number>();
  for (const l of links) linked.set(l.ledger_entry_id, (linked.get(l.ledger_entry_id) ?? 0) + l.amount_minor);
  return linked;
}

/** Which entries' open rows an apply journal's writes can change. */
export interface TouchedEntries {
  /** Entries written, and entries of links inserted or deleted. */
  entry_ids: string[];
  /** Links updated without naming their entry: their entry is read from the store. */
  link_ids: string[];
  /** The organisation's settlement accounts changed: every entry's row may change. */
  whole_org: boolean;
  /** Whether an entry was written: else a stored row still holds its entry's fields (reopenedRows). */
  entries_written: boolean;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function touchedEntries(writes: readonly JournalWrite[]): TouchedEntries {
  const entries = new Set<string>();
  const links = new Set<string>();
  let wholeOrg = false;
  let entriesWritten = false;
  for (const w of writes) {
    if (w.collection === 'ledger_entries') {
      entries.add(w.id);
      entriesWritten = true;
    } else if (w.collection === 'bank_links') {
      const fields = w.action === 'update' ? { ...w.before, ...w.set } : w.doc;
      const entry = text(fields.ledger_entry_id);
      if (entry !== null) entries.add(entry);
      else links.add(w.id);
    } else if (w.collection === 'orgs') {
      const fields = w.action === 'update' ? { ...w.before, ...w.set } : w.doc;
      if ('settlement_accounts' in fields) wholeOrg = true;
    }
  }
  return { entry_ids: [...entries], link_ids: [...links], whole_org: wholeOrg, entries_written: entriesWritten };
}
