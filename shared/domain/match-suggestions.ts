// Match suggestions for one bank transaction (docs/reference/http-api.md §8.2):
// which open entries, sets of entries and open inbox documents could settle
// what it has left unlinked, and in which order, each with the signals that
// put it there. Pure: the worker's read job loads the records; this ranks.
// Suggestions never stage anything: an agent stages a bank match (§8.1) or a
// booking from them, for a person to review.
import type { BankTransaction, InboxDocument, IsoDate } from './books.js';
import { compareIds } from './books.js';
import { normaliseVendorName } from './vendor-key.js';

/** An entry the read may suggest: posted, with what its links leave open. */
export interface CandidateEntry {
  id: string;
  entry_date: IsoDate;
  reference: string;
  counterparty_id: string;
  currency: string;
  /** Signed, on the settlement accounts (shared/domain/books.ts openAmountMinor). */
  open_amount_minor: number;
  /** |open amount| − Σ its links (the entry read's `open` rule). */
  open_minor: number;
}

/** An open inbox document with the fields a suggestion reads. */
export interface CandidateDocument {
  id: string;
  received_at: string;
  invoice_number: string | null;
  invoice_date: IsoDate | null;
  vendor_name: string | null;
  total_minor: number | null;
  currency: string | null;
}

export interface SuggestionInput {
  transaction: Pick<
    BankTransaction,
    'id' | 'booking_date' | 'amount_minor' | 'currency' | 'counterparty_id' | 'counterparty_name' | 'remittance_info'
  >;
  /** What the transaction has left unlinked: |amount| − Σ its links. */
  remaining_minor: number;
  entries: readonly CandidateEntry[];
  documents: readonly CandidateDocument[];
  /** Each counterparty's name as the counterparty read names it (its latest bank name), where it has one. */
  counterparty_names: ReadonlyMap<string, string | null>;
  declined_entry_ids: ReadonlySet<string>;
  declined_document_ids: ReadonlySet<string>;
  limit: number;
}

export type AmountFit = 'exact' | 'partial';

export interface Suggestion {
  entries: Array<{ id: string; open_minor: number }>;
  documents: Array<{ id: string; total_minor: number }>;
  amount_fit: AmountFit;
  /** 0–1, three decimals: the order's rules as one number (SCORE), for display; the order is the rules'. */
  score: number;
  signals: {
    /** Which reference or invoice number the remittance text holds, or null. */
    reference: string | null;
    /** "same counterparty", or "similar name: <name>", or null. */
    counterparty: string | null;
    /** Days between the booking date and the candidate's date. */
    date_days: number;
  };
}

/**
 * How many open entries of each candidate group (docs/reference/http-api.md
 * §8.2 "Candidates") a suggestion reads on each side of the booking date:
 * the nearest on or before it, and as many after it. Near and amount: at
 * most 20 suggestions are answered; the counterparty's: room for its sets.
 */
export const CANDIDATES_PER_SIDE = { near: 25, amount: 25, counterparty: 100 } as const;

/** How many sets of one counterparty are kept (the read stays bounded). */
export const MAX_SETS_PER_COUNTERPARTY = 1000;

/**
 * How many pairs of entries the search for sets of three tries per
 * transaction, over all counterparties: the search is quadratic in a
 * counterparty's open entries, so past this only single entries and sets of
 * two are sought. Counted in the search's
 * own order, so the same books give the same sets.
 */
export const MAX_TRIPLE_TRIES = 1_000_000;

/**
 * The weights of the score: each rule's weight is above the sum of the later
 * ones, so a higher score never ranks lower. The date part shrinks with the
 * distance (a week away: half of it).
 */
export const SCORE = { exact: 0.55, reference: 0.25, counterparty: 0.12, date: 0.08 } as const;

const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
/** Letters and digits only, upper case: `INV-2026/0042` and `inv 2026 0042` compare equal. */
const squash = (text: string): string => text.normalize('NFKC').toUpperCase().replace(NOT_LETTER_OR_DIGIT, '');
/** A reference shorter than this (squashed) is found in too many texts by chance to be a signal. */
export const MIN_REFERENCE_LENGTH = 4;

/** Whether the remittance text holds this reference or invoice number (letters and digits compared, case ignored). */
export function inRemittance(remittance: string, reference: string | null): boolean {
  return inSquashed(squash(remittance), reference);
}

/** inRemittance of a remittance text squashed already (a ranking squashes it once). */
function inSquashed(remittance: string, reference: string | null): boolean {
  // A stored record without the field gives no signal rather than failing the read.
  if (typeof reference !== 'string') return false;
  const wanted = squash(reference);
  return wanted.length >= MIN_REFERENCE_LENGTH && remittance.includes(wanted);
}

/**
 * Whether two names are similar: equal once normalised as vendor names are
 * (shared/domain/vendor-key.ts: case folded, punctuation and trailing legal
 * forms removed), or every word of the shorter one is a word of the other.
 */
export function similarNames(a: string | null, b: string | null): boolean {
  const x = normaliseVendorName(a);
  const y = normaliseVendorName(b);
  if (x === null || y === null) return false;
  if (x === y) return true;
  const [shorter, longer] = x.length <= y.length ? [x, y] : [y, x];
  const words = new Set(longer.split(' '));
  return shorter.split(' ').every((w) => words.has(w));
}

/** Whole days between two ISO dates (either order). */
export function daysBetween(a: IsoDate, b: IsoDate): number {
  return Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / 86_400_000;
}

interface Ranked extends Suggestion {
  key: string;
  hasReference: boolean;
  hasCounterparty: boolean;
}

/** The order (docs/reference/http-api.md §8.2): exact fit, reference, counterparty, nearer date, then ids. */
export function compareSuggestions(a: Ranked, b: Ranked): number {
  if (a.amount_fit !== b.amount_fit) return a.amount_fit === 'exact' ? -1 : 1;
  if (a.hasReference !== b.hasReference) return a.hasReference ? -1 : 1;
  if (a.hasCounterparty !== b.hasCounterparty) return a.hasCounterparty ? -1 : 1;
  if (a.signals.date_days !== b.signals.date_days) return a.signals.date_days - b.signals.date_days;
  return compareIds(a.key, b.key);
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

function scored(fit: AmountFit, hasReference: boolean, hasCounterparty: boolean, days: number): number {
  return round3(
    (fit === 'exact' ? SCORE.exact : 0) +
      (hasReference ? SCORE.reference : 0) +
      (hasCounterparty ? SCORE.counterparty : 0) +
      SCORE.date / (1 + days / 7),
  );
}

/** Whole days from `booking` to each date, each date parsed once. */
function daysFrom(booking: IsoDate): (date: IsoDate) => number {
  const memo = new Map<string, number>();
  return (date) => {
    let days = memo.get(date);
    if (days === undefined) memo.set(date, (days = daysBetween(booking, date)));
    return days;
  };
}

/** Every candidate of `input` (no order), each signal computed once per text, name or date. */
function candidatesOf(input: SuggestionInput): Ranked[] {
  const { transaction: txn, remaining_minor: remaining } = input;
  if (remaining <= 0 || txn.amount_minor === 0) return [];
  const moneyIn = txn.amount_minor > 0;
  const remittance = squash(txn.remittance_info ?? '');
  const referenced = (reference: string | null): boolean => inSquashed(remittance, reference);
  const signals = new Map<string, string | null>();
  const counterpartySignal = (counterpartyId: string): string | null => {
    let signal = signals.get(counterpartyId);
    if (signal !== undefined) return signal;
    if (txn.counterparty_id !== null && txn.counterparty_id === counterpartyId) signal = 'same counterparty';
    else {
      const name = input.counterparty_names.get(counterpartyId) ?? null;
      signal = similarNames(txn.counterparty_name, name) ? `similar name: ${name}` : null;
    }
    signals.set(counterpartyId, signal);
    return signal;
  };
  const days = daysFrom(txn.booking_date);
  const open = input.entries
    .filter(
      (e) =>
        !input.declined_entry_ids.has(e.id) &&
        e.currency === txn.currency &&
        e.open_minor > 0 &&
        (moneyIn ? e.open_amount_minor > 0 : e.open_amount_minor < 0),
    )
    .sort((a, b) => compareIds(a.id, b.id));

  const ranked: Ranked[] = [];
  const entrySuggestion = (set: readonly CandidateEntry[], fit: AmountFit): Ranked => {
    const found = set.filter((e) => referenced(e.reference)).map((e) => e.reference);
    const counterparty = counterpartySignal(set[0]!.counterparty_id);
    const latest = set.reduce((d, e) => (e.entry_date > d ? e.entry_date : d), set[0]!.entry_date);
    const dateDays = days(latest);
    return {
      entries: set.map((e) => ({ id: e.id, open_minor: e.open_minor })),
      documents: [],
      amount_fit: fit,
      score: scored(fit, found.length > 0, counterparty !== null, dateDays),
      signals: {
        reference: found.length > 0 ? `${found.join(', ')} in the remittance text` : null,
        counterparty,
        date_days: dateDays,
      },
      key: set.length === 1 ? set[0]!.id : set.map((e) => e.id).join(','),
      hasReference: found.length > 0,
      hasCounterparty: counterparty !== null,
    };
  };
  for (const e of open) ranked.push(entrySuggestion([e], e.open_minor === remaining ? 'exact' : 'partial'));
  for (const set of exactSets(open, remaining)) ranked.push(entrySuggestion(set, 'exact'));

  for (const d of [...input.documents].sort((a, b) => compareIds(a.id, b.id))) {
    if (input.declined_document_ids.has(d.id) || d.currency !== txn.currency || d.total_minor !== remaining) continue;
    const hasReference = referenced(d.invoice_number);
    const counterparty = similarNames(txn.counterparty_name, d.vendor_name) ? `similar name: ${d.vendor_name}` : null;
    const dateDays = days(d.invoice_date ?? d.received_at.slice(0, 10));
    ranked.push({
      entries: [],
      documents: [{ id: d.id, total_minor: d.total_minor }],
      amount_fit: 'exact',
      score: scored('exact', hasReference, counterparty !== null, dateDays),
      signals: {
        reference: hasReference ? `${d.invoice_number} in the remittance text` : null,
        counterparty,
        date_days: dateDays,
      },
      key: d.id,
      hasReference,
      hasCounterparty: counterparty !== null,
    });
  }
  return ranked;
}

/**
 * The suggestions for one transaction, best first, at most `limit`. Nothing
 * when the transaction has nothing left unlinked (or is zero). Candidates:
 * open entries of its currency and direction (money in ↔ receivables, money
 * out ↔ payables), alone (exact when what they leave open is the remaining
 * amount, else partial), and sets of two or three entries of one
 * counterparty whose open amounts sum exactly to it; open documents whose
 * currency and total are the transaction's currency and remaining amount. A
 * declined entry or document is never a candidate, alone or in a set.
 */
export function rankSuggestions(input: SuggestionInput): Suggestion[] {
  return candidatesOf(input)
    .sort(compareSuggestions)
    .slice(0, input.limit)
    .map(({ key: _key, hasReference: _r, hasCounterparty: _c, ...s }) => s);
}

/**
 * Sets of two or three entries of one counterparty (`open` sorted by id)
 * whose open amounts sum to `remaining`, each set's entries by id; at most
 * MAX_SETS_PER_COUNTERPARTY per counterparty, found in id order; sets of
 * three only within `maxTries` tries of a pair (MAX_TRIPLE_TRIES).
 */
export function exactSets(
  open: readonly CandidateEntry[],
  remaining: number,
  maxTries = MAX_TRIPLE_TRIES,
): CandidateEntry[][] {
  const byCounterparty = new Map<string, CandidateEntry[]>();
  for (const e of open) {
    if (e.open_minor >= remaining) continue;
    const list = byCounterparty.get(e.counterparty_id);
    if (list) list.push(e);
    else byCounterparty.set(e.counterparty_id, [e]);
  }
  const sets: CandidateEntry[][] = [];
  let tries = 0;
  for (const id of [...byCounterparty.keys()].sort(compareIds)) {
    const list = byCounterparty.get(id)!;
    // Positions of each open amount, ascending: the third (or second) member is looked up, not searched.
    const at = new Map<number, number[]>();
    list.forEach((e, i) => at.set(e.open_minor, [...(at.get(e.open_minor) ?? []), i]));
    let found = 0;
    for (let i = 0; i < list.length && found < MAX_SETS_PER_COUNTERPARTY; i += 1) {
      for (const j of at.get(remaining - list[i]!.open_minor) ?? []) {
        if (j <= i || found >= MAX_SETS_PER_COUNTERPARTY) continue;
        sets.push([list[i]!, list[j]!]);
        found += 1;
      }
      for (let j = i + 1; j < list.length && found < MAX_SETS_PER_COUNTERPARTY && tries < maxTries; j += 1) {
        tries += 1;
        const rest = remaining - list[i]!.open_minor - list[j]!.open_minor;
        if (rest <= 0) continue;
        for (const k of at.get(rest) ?? []) {
          if (k <= j || found >= MAX_SETS_PER_COUNTERPARTY) continue;
          sets.push([list[i]!, list[j]!, list[k]!]);
          found += 1;
        }
      }
    }
  }
  return sets;
}

/** An open inbox document as a candidate (its extracted fields, absent ones null). */
export function candidateDocument(d: Pick<InboxDocument, 'id' | 'received_at' | 'extracted'>): CandidateDocument {
  const x = d.extracted ?? {};
  return {
    id: d.id,
    received_at: d.received_at,
    invoice_number: x.invoice_number ?? null,
    invoice_date: x.invoice_date ?? null,
    vendor_name: x.vendor_name ?? null,
    total_minor: x.total_minor ?? null,
    currency: x.currency ?? null,
  };
}
