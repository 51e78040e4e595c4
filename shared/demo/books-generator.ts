// Deterministic demo books (docs/guide/importing-books.md): one organisation of any
// size with real work for every operation — FIFO links to repair, repairs
// blocked by frozen links (counterparties `cp_ORG_x…`), reconciled history to
// respect, a fully linked stretch after it that a statement can clear,
// reversible and already-reversed entries, and inbox duplicates of each rule
// plus near misses. The same (org_id, size, seed) always gives the same file;
// no clock and no Math.random are read. shared/demo/demo-examples.ts finds one
// example of each case in them.
import type { BooksFile } from '../domain/books-file.js';
import type { InboxDocument, IsoDate, LedgerLine } from '../domain/books.js';
import { allocateFifo } from '../domain/fifo-allocation.js';

export interface GenerateBooksOptions {
  org_id: string;
  /** About the number of bank transactions to produce (≥ 1). */
  size: number;
  seed: number;
}

type FileEntry = BooksFile['ledger_entries'][number];
type FileAccount = BooksFile['bank_accounts'][number];
type FileTransaction = BooksFile['bank_transactions'][number];
type FileLink = BooksFile['bank_links'][number];

/** The demo year: every date falls in 2025, so a default `as_of` of today covers it. */
const YEAR_START_MS = Date.UTC(2025, 0, 1);
const LAST_DAY = 364;
const DAY_MS = 86_400_000;
const LOCK_DAY = 30; // 2025-01-31
const RECONCILE_DAY = 100; // 2025-04-11: roughly the first third is reconciled

const COMPANY_WORDS = [
  'Nordlicht',
  'Müller',
  'Bergmann',
  'Atlas',
  'Kessler',
  'Sonnenhof',
  'Weber',
  'Falk',
  'Lindqvist',
  'Brandt',
  'Hoffmann',
  'Zeller',
];
const TRADE_WORDS = [
  'Bürobedarf',
  'Logistik',
  'Handel',
  'Software',
  'Druck',
  'Energie',
  'Bau',
  'Consulting',
  'Reinigung',
  'Catering',
];
const LEGAL_FORMS = ['GmbH', 'AG', 'KG', 'Ltd', 'GmbH & Co. KG', 'e.K.'];

/**
 * The demo's chart of accounts: every code its records use (bank accounts'
 * ledger accounts, settlement accounts, invoice lines), a bank-fee account
 * for booking, and one inactive account. Fixed, so the same seed still gives
 * the same books.
 */
const DEMO_CHART: readonly NonNullable<BooksFile['accounts']>[number][] = [
  { code: '1200', name: 'Bank, main current account', type: 'asset', active: true },
  { code: '1210', name: 'Bank, second current account', type: 'asset', active: true },
  { code: '1400', name: 'Trade receivables', type: 'asset', active: true },
  { code: '1600', name: 'Trade payables', type: 'liability', active: true },
  { code: '4000', name: 'Purchased goods and services', type: 'expense', active: true },
  { code: '4980', name: 'Office supplies (closed)', type: 'expense', active: false },
  { code: '6855', name: 'Bank fees', type: 'expense', active: true },
  { code: '8400', name: 'Revenue', type: 'income', active: true },
];

/** The demo's books (`npm start`, scripts/demo.ts): the exchange tests check these too. */
export const DEMO_BOOKS: GenerateBooksOptions = { org_id: 'org_demo', size: 500, seed: 1 };

export function generateBooks(options: GenerateBooksOptions): BooksFile {
  const { org_id: orgId, size, seed } = options;
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(orgId)) throw new RangeError('org_id must be 1-64 characters of [A-Za-z0-9_.-]');
  if (!Number.isSafeInteger(size) || size < 1 || size > 5_000_000)
    throw new RangeError('size must be an integer from 1 to 5000000');
  if (!Number.isSafeInteger(seed)) throw new RangeError('seed must be a safe integer');

  const rng = new Rng(fnv1a(`${orgId}\u0000${seed}`));
  const ids = new IdMaker(orgId);
  const ledgerEntries: FileEntry[] = [];
  const transactions: FileTransaction[] = [];
  const links: FileLink[] = [];

  // Accounts: a second one from a modest size on.
  const accounts: FileAccount[] = [
    {
      id: `ba_${orgId}_1`,
      name: 'Main current account',
      currency: 'EUR',
      ledger_account: '1200',
      reconciled_through: null,
      opening_balance_minor: 25_000_00,
      iban: 'DE89370400440532013000',
      account_number: '0532013000',
    },
  ];
  if (size >= 40) {
    accounts.push({
      id: `ba_${orgId}_2`,
      name: 'Second current account',
      currency: 'EUR',
      ledger_account: '1210',
      reconciled_through: null,
      opening_balance_minor: 5_000_00,
      iban: 'DE02120300000000202051',
      account_number: '0000202051',
    });
  }

  // Counterparties: customers pay receivables in, suppliers are paid out.
  const invoicesPerCounterparty = Math.max(1, Math.min(12, Math.round(size / 4)));
  const customerCount = Math.max(2, Math.round((size * 0.6) / invoicesPerCounterparty));
  const supplierCount = Math.max(2, Math.round((size * 0.4) / invoicesPerCounterparty));
  const counterparties: Counterparty[] = [];
  for (let i = 0; i < customerCount + supplierCount; i += 1) {
    const customer = i < customerCount;
    const n = customer ? i : i - customerCount;
    counterparties.push({
      id: `cp_${orgId}_${customer ? 'c' : 's'}${pad(n + 1, 5)}`,
      name: companyName(n, customer ? 0 : 5),
      taxId: customer ? null : `DE${pad(100_000_000 + ((n * 7_919 + 13) % 900_000_000), 9)}`,
      customer,
      accountId: accounts.length > 1 && rng.chance(0.2) ? accounts[1]!.id : accounts[0]!.id,
      invoices: [],
    });
  }

  // Each counterparty: invoices over the year, payments in order, links by FIFO.
  for (const cp of counterparties) {
    const count = rng.int(Math.ceil(invoicesPerCounterparty / 2), Math.ceil(invoicesPerCounterparty * 1.5));
    const step = Math.max(1, Math.floor(300 / count));
    let day = rng.int(0, 20);
    for (let i = 0; i < count; i += 1) {
      day = Math.min(330, day + rng.int(1, 2 * step));
      const amount = rng.int(20, 4_000) * 100 + rng.pick([0, 0, 50, 99]);
      const entry = invoiceEntry(ids, cp, day, amount);
      ledgerEntries.push(entry);
      cp.invoices.push({ id: entry.id, day, amount, reference: entry.reference });
    }
    payCounterparty(rng, ids, cp, transactions, links);
  }

  // Already-reversed pairs: an invoice posted by mistake and its reversal.
  const reversedEntryIds: { id: string; customer: boolean }[] = [];
  const reversedPairs = Math.max(1, Math.round(size / 200));
  for (let i = 0; i < reversedPairs; i += 1) {
    // why: the first pair is a customer's, so that a blocked customer has a reversed entry to link to.
    const cp = i === 0 ? rng.pick(counterparties.filter((c) => c.customer)) : rng.pick(counterparties);
    const day = rng.int(LOCK_DAY + 1, 320);
    const original = invoiceEntry(ids, cp, day, rng.int(10, 900) * 100);
    const reversal: FileEntry = {
      id: ids.next('le'),
      entry_date: isoDay(Math.min(LAST_DAY, day + rng.int(1, 10))),
      description: `Reversal of ${original.id}`,
      reference: original.reference,
      counterparty_id: cp.id,
      currency: 'EUR',
      lines: original.lines.map((l) => ({
        account: l.account,
        debit_minor: l.credit_minor,
        credit_minor: l.debit_minor,
      })),
      status: 'posted',
      reversal_of: original.id,
      reversed_by: null,
    };
    original.status = 'reversed';
    original.reversed_by = reversal.id;
    ledgerEntries.push(original, reversal);
    reversedEntryIds.push({ id: original.id, customer: cp.customer });
  }

  const blocked = blockedCounterparties(
    rng,
    ids,
    accounts[0]!,
    Math.max(1, Math.round(size / 250)),
    ledgerEntries,
    transactions,
    links,
  );
  reconcile(accounts, transactions, links);
  freezeLinksToReversed(blocked, transactions, links, reversedEntryIds);
  const bankLinks = breakLinks(rng, counterparties, transactions, links, reversedEntryIds);

  return {
    org: {
      id: orgId,
      name: `Demo ${orgId}`,
      base_currency: 'EUR',
      lock_date: isoDay(LOCK_DAY),
      settlement_accounts: ['1400', '1600'],
      require_distinct_approver: true,
    },
    accounts: DEMO_CHART.map((a) => ({ ...a })),
    ledger_entries: ledgerEntries,
    bank_accounts: accounts,
    bank_transactions: transactions,
    bank_links: bankLinks,
    inbox_documents: inboxDocuments(
      rng,
      ids,
      counterparties.filter((c) => !c.customer),
      Math.max(12, size),
    ),
  };
}

// ---------------------------------------------------------------------------
// Ledger and bank

interface Counterparty {
  id: string;
  name: string;
  taxId: string | null;
  customer: boolean;
  accountId: string;
  invoices: { id: string; day: number; amount: number; reference: string }[];
}

function invoiceEntry(ids: IdMaker, cp: Counterparty, day: number, amount: number): FileEntry {
  const id = ids.next('le');
  const reference = cp.customer
    ? `INV-2025-${id.slice(id.lastIndexOf('_') + 1)}`
    : `SUP-${id.slice(id.lastIndexOf('_') + 1)}`;
  // Receivable: debit 1400 / credit 8400 revenue. Payable: debit 4000 expense / credit 1600.
  const lines: LedgerLine[] = cp.customer
    ? [
        { account: '1400', debit_minor: amount, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: amount },
      ]
    : [
        { account: '4000', debit_minor: amount, credit_minor: 0 },
        { account: '1600', debit_minor: 0, credit_minor: amount },
      ];
  return {
    id,
    entry_date: isoDay(day),
    description: cp.customer ? `Invoice ${reference} to ${cp.name}` : `Bill ${reference} from ${cp.name}`,
    reference,
    counterparty_id: cp.id,
    currency: 'EUR',
    lines,
    status: 'posted',
    reversal_of: null,
    reversed_by: null,
  };
}

/**
 * Payments for one counterparty, dated in invoice order (so FIFO by date is
 * also the order of payment): mostly in full, some split, some paying two
 * invoices, a few short or over; the most recent invoices stay unpaid.
 * Links follow FIFO, which makes an unbroken counterparty a repair `noop`.
 */
function payCounterparty(
  rng: Rng,
  ids: IdMaker,
  cp: Counterparty,
  transactions: FileTransaction[],
  links: FileLink[],
): void {
  const sign = cp.customer ? 1 : -1;
  const paid = cp.invoices.length - rng.int(0, 2);
  const payments: FileTransaction[] = [];
  let payDay = 0;
  const pay = (amount: number, afterDay: number, references: string[]): void => {
    payDay = Math.min(LAST_DAY, Math.max(payDay, afterDay + rng.int(2, 30)));
    payments.push({
      id: ids.next('bt'),
      bank_account_id: cp.accountId,
      booking_date: isoDay(payDay),
      amount_minor: sign * amount,
      currency: 'EUR',
      counterparty_id: cp.id,
      counterparty_name: cp.name,
      remittance_info: `${cp.customer ? 'Payment' : 'Transfer'} ${references.join(', ')}`,
      status: 'unreconciled',
      reconciliation_id: null,
    });
  };
  for (let i = 0; i < paid; i += 1) {
    const inv = cp.invoices[i]!;
    const next = cp.invoices[i + 1];
    const r = rng.next();
    if (r < 0.7) pay(inv.amount, inv.day, [inv.reference]);
    else if (r < 0.82 && inv.amount >= 200) {
      const first = Math.floor(inv.amount * (0.3 + 0.4 * rng.next()));
      pay(first, inv.day, [inv.reference]);
      pay(inv.amount - first, inv.day, [inv.reference]);
    } else if (r < 0.92 && next && i + 1 < paid) {
      pay(inv.amount + next.amount, next.day, [inv.reference, next.reference]);
      i += 1;
    } else if (r < 0.96)
      pay(Math.max(1, inv.amount - rng.int(1, Math.max(1, Math.floor(inv.amount / 2)))), inv.day, [inv.reference]);
    else pay(inv.amount + rng.int(100, 5_000), inv.day, [inv.reference]);
  }

  const result = allocateFifo(
    payments.map((t) => ({ id: t.id, amount_minor: Math.abs(t.amount_minor) })),
    cp.invoices.map((inv) => ({ id: inv.id, amount_minor: inv.amount })),
  );
  const dayOf = new Map(payments.map((t) => [t.id, Math.round((Date.parse(t.booking_date) - YEAR_START_MS) / DAY_MS)]));
  for (const a of result.allocations) {
    links.push({
      id: ids.next('lnk'),
      bank_transaction_id: a.transaction_id,
      ledger_entry_id: a.entry_id,
      amount_minor: a.amount_minor,
      created_at: isoTime(dayOf.get(a.transaction_id)!, 9 * 3600 + rng.int(0, 8 * 3600)),
      created_by: rng.pick(['alice', 'bob', 'agent:recon-bot']),
    });
  }
  transactions.push(...payments);
}

/**
 * Customers whose repair is blocked (ids `cp_ORG_x…`): two early invoices,
 * the first paid in full well before the reconciliation date, so that the
 * payment gets reconciled; freezeLinksToReversed then points its link at a
 * reversed entry of another counterparty. The second invoice stays open.
 */
function blockedCounterparties(
  rng: Rng,
  ids: IdMaker,
  account: FileAccount,
  count: number,
  ledgerEntries: FileEntry[],
  transactions: FileTransaction[],
  links: FileLink[],
): Counterparty[] {
  const out: Counterparty[] = [];
  for (let i = 0; i < count; i += 1) {
    const cp: Counterparty = {
      id: `cp_${ids.orgId}_x${pad(i + 1, 5)}`,
      name: `${companyName(i, 3)} (disputed)`,
      taxId: null,
      customer: true,
      accountId: account.id,
      invoices: [],
    };
    const day = rng.int(1, 8);
    for (const [offset, amount] of [
      [0, rng.int(50, 2_000) * 100],
      [rng.int(20, 40), rng.int(50, 2_000) * 100],
    ] as const) {
      const entry = invoiceEntry(ids, cp, day + offset, amount);
      ledgerEntries.push(entry);
      cp.invoices.push({ id: entry.id, day: day + offset, amount, reference: entry.reference });
    }
    // Paid in full a few days after the first invoice: early enough to be reconciled.
    const first = cp.invoices[0]!;
    const payDay = day + rng.int(2, 5);
    const txn: FileTransaction = {
      id: ids.next('bt'),
      bank_account_id: account.id,
      booking_date: isoDay(payDay),
      amount_minor: first.amount,
      currency: 'EUR',
      counterparty_id: cp.id,
      counterparty_name: cp.name,
      remittance_info: `Payment ${first.reference}`,
      status: 'unreconciled',
      reconciliation_id: null,
    };
    transactions.push(txn);
    links.push({
      id: ids.next('lnk'),
      bank_transaction_id: txn.id,
      ledger_entry_id: first.id,
      amount_minor: first.amount,
      created_at: isoTime(payDay, 10 * 3600),
      created_by: 'alice',
    });
    out.push(cp);
  }
  return out;
}

/**
 * A reconciled payment of each blocked customer re-pointed at a reversed
 * entry: the frozen link the repair must refuse to work around
 * (frozen_link_to_reversed_entry, and frozen_link_to_other_counterparty when
 * the entry is another counterparty's). Only customers' reversed entries are
 * used, so the sign of the link matches.
 */
function freezeLinksToReversed(
  blocked: Counterparty[],
  transactions: FileTransaction[],
  links: FileLink[],
  reversed: { id: string; customer: boolean }[],
): void {
  const pool = reversed.filter((r) => r.customer);
  if (pool.length === 0) return;
  const status = new Map(transactions.map((t) => [t.id, t]));
  blocked.forEach((cp, i) => {
    const link = links.find(
      (l) =>
        status.get(l.bank_transaction_id)?.counterparty_id === cp.id &&
        status.get(l.bank_transaction_id)?.status === 'reconciled',
    );
    if (link) link.ledger_entry_id = pool[i % pool.length]!.id;
  });
}

/**
 * Reconcile each account through a statement date with monthly statements:
 * every transaction up to that date is reconciled and fully linked, and
 * `reconciled_through` carries the balance after them. The date is moved
 * earlier if a transaction before it is not fully linked.
 */
function reconcile(accounts: FileAccount[], transactions: FileTransaction[], links: FileLink[]): void {
  const linked = new Map<string, number>();
  for (const l of links) linked.set(l.bank_transaction_id, (linked.get(l.bank_transaction_id) ?? 0) + l.amount_minor);
  for (const account of accounts) {
    const own = transactions.filter((t) => t.bank_account_id === account.id);
    let through = isoDay(RECONCILE_DAY);
    for (const t of own) {
      if ((linked.get(t.id) ?? 0) !== Math.abs(t.amount_minor) && t.booking_date <= through)
        through = dayBefore(t.booking_date);
    }
    let balance = account.opening_balance_minor;
    for (const t of own) {
      if (t.booking_date > through) continue;
      t.status = 'reconciled';
      t.reconciliation_id = `rec_${account.id.slice(3)}_${t.booking_date.slice(0, 7)}`;
      balance += t.amount_minor;
    }
    account.reconciled_through = own.some((t) => t.status === 'reconciled')
      ? { date: through, balance_minor: balance }
      : null;
  }
}

/**
 * Deliberately broken links, on unreconciled transactions only (returns the
 * links that remain): links to a
 * later invoice than FIFO would pick, to another counterparty's open invoice,
 * to a reversed entry, and partial or missing links.
 */
function breakLinks(
  rng: Rng,
  counterparties: Counterparty[],
  transactions: FileTransaction[],
  links: FileLink[],
  reversed: { id: string; customer: boolean }[],
): FileLink[] {
  const status = new Map(transactions.map((t) => [t.id, t.status]));
  const linkedEntries = new Set(links.map((l) => l.ledger_entry_id));
  const invoiceOwner = new Map<string, Counterparty>();
  for (const cp of counterparties) for (const inv of cp.invoices) invoiceOwner.set(inv.id, cp);
  // Open invoices nobody links to: safe targets for a wrong-counterparty link.
  const unlinked = {
    customer: [] as { id: string; amount: number; owner: string }[],
    supplier: [] as { id: string; amount: number; owner: string }[],
  };
  for (const cp of counterparties) {
    for (const inv of cp.invoices) {
      if (!linkedEntries.has(inv.id))
        (cp.customer ? unlinked.customer : unlinked.supplier).push({ id: inv.id, amount: inv.amount, owner: cp.id });
    }
  }

  // why: the first unreconciled transactions of each account stay as they are,
  // so that a statement right after `reconciled_through` can clear them
  // (the demo's reconciliation that succeeds).
  const protectedTxns = firstUnreconciled(transactions, 8);
  const regular = new Set(counterparties.map((c) => c.id));
  const blockedOwner = new Set(
    transactions.filter((t) => t.counterparty_id === null || !regular.has(t.counterparty_id)).map((t) => t.id),
  );
  const candidates = links.filter(
    (l) =>
      status.get(l.bank_transaction_id) === 'unreconciled' &&
      !protectedTxns.has(l.bank_transaction_id) &&
      !blockedOwner.has(l.bank_transaction_id),
  );
  const toBreak = Math.min(candidates.length, Math.max(4, Math.round(transactions.length * 0.06)));
  const removed = new Set<string>();
  const broken = new Set<string>();
  const usedTargets = new Set<string>();
  for (let k = 0; k < toBreak; k += 1) {
    const link = candidates[rng.int(0, candidates.length - 1)]!;
    // why: breaking one link twice could carry an uncapped amount onto
    // another counterparty's invoice (a frozen over-allocation there).
    if (broken.has(link.id)) continue;
    broken.add(link.id);
    const owner = invoiceOwner.get(link.ledger_entry_id)!;
    const kind = k % 5;
    if (kind === 0 || kind === 1) {
      // Out of FIFO order: a later invoice of the same counterparty.
      const index = owner.invoices.findIndex((inv) => inv.id === link.ledger_entry_id);
      const later = owner.invoices.slice(index + 1);
      if (later.length > 0) link.ledger_entry_id = rng.pick(later).id;
    } else if (kind === 2) {
      // Another counterparty's invoice, capped at its open amount so that its
      // own repair sees no frozen over-allocation.
      const pool = owner.customer ? unlinked.customer : unlinked.supplier;
      const target = pool.length > 0 ? rng.pick(pool) : undefined;
      if (target && target.owner !== owner.id && !usedTargets.has(target.id)) {
        usedTargets.add(target.id);
        link.ledger_entry_id = target.id;
        link.amount_minor = Math.min(link.amount_minor, target.amount);
      }
    } else if (kind === 3) {
      // A reversed entry of the same kind, else a partial link.
      const pool = reversed.filter((r) => r.customer === owner.customer);
      if (pool.length > 0) link.ledger_entry_id = rng.pick(pool).id;
      else if (link.amount_minor >= 2) link.amount_minor = Math.floor(link.amount_minor / 2);
    } else if (link.amount_minor >= 2 && rng.chance(0.6)) {
      link.amount_minor = Math.floor(link.amount_minor / 2); // partial
    } else {
      removed.add(link.id); // missing
    }
  }
  return links.filter((l) => !removed.has(l.id));
}

/** The ids of each account's first `n` unreconciled transactions by (booking_date, id), and of any on the same day as the last of them. */
function firstUnreconciled(transactions: FileTransaction[], n: number): Set<string> {
  const out = new Set<string>();
  const byAccount = new Map<string, FileTransaction[]>();
  for (const t of transactions) {
    if (t.status !== 'unreconciled') continue;
    const list = byAccount.get(t.bank_account_id);
    if (list) list.push(t);
    else byAccount.set(t.bank_account_id, [t]);
  }
  for (const list of byAccount.values()) {
    list.sort((a, b) =>
      a.booking_date < b.booking_date ? -1 : a.booking_date > b.booking_date ? 1 : a.id < b.id ? -1 : 1,
    );
    const lastDay = list[Math.min(n, list.length) - 1]?.booking_date ?? '';
    for (const t of list) if (t.booking_date <= lastDay) out.add(t.id);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Inbox

function inboxDocuments(rng: Rng, ids: IdMaker, vendors: Counterparty[], count: number): InboxDocument[] {
  const docs: InboxDocument[] = [];
  const originals: InboxDocument[] = [];
  while (docs.length < count) {
    const base = originals.length > 0 ? rng.pick(originals) : null;
    const r = rng.next();
    if (base && r < 0.09) docs.push(sameFile(rng, ids, base));
    else if (base && r < 0.18) docs.push(sameInvoiceNumber(rng, ids, base));
    else if (base && r < 0.26) docs.push(sameAmountNearDate(rng, ids, base));
    else if (base && r < 0.3) docs.push(nearMiss(rng, ids, base));
    else {
      const doc = originalDocument(rng, ids, rng.pick(vendors));
      originals.push(doc);
      docs.push(doc);
    }
  }
  return docs;
}

function originalDocument(rng: Rng, ids: IdMaker, vendor: Counterparty): InboxDocument {
  const invoiceDay = rng.int(0, 340);
  const number = rng.chance(0.5)
    ? `RE-${pad(rng.int(1, 9_999), 4)}`
    : `${rng.int(2024, 2025)}/${pad(rng.int(1, 99_999), 5)}`;
  const extracted: InboxDocument['extracted'] = {
    vendor_name: vendor.name,
    invoice_number: number,
    invoice_date: isoDay(invoiceDay),
    total_minor: rng.int(5, 3_000) * 100 + rng.pick([0, 0, 90]),
    currency: 'EUR',
  };
  if (vendor.taxId && rng.chance(0.4)) extracted.vendor_tax_id = vendor.taxId;
  // Extraction is imperfect: a few fields are missing.
  const missing = rng.next();
  if (missing < 0.04) delete extracted.invoice_number;
  else if (missing < 0.07) delete extracted.total_minor;
  else if (missing < 0.09) delete extracted.vendor_name;
  return {
    id: ids.next('doc'),
    received_at: isoTime(Math.min(LAST_DAY, invoiceDay + rng.int(0, 5)), rng.int(0, DAY_MS / 1000 - 1)),
    source: rng.pick(['email', 'upload', 'scan']),
    status: rng.pick(['booked', 'booked', 'booked', 'open', 'open', 'archived']),
    file: {
      sha256: rng.hex(64),
      name: `${(number ?? 'invoice').replace(/\W+/g, '_')}.pdf`,
      size: rng.int(20_000, 400_000),
      mime: 'application/pdf',
    },
    extracted,
  };
}

function duplicateOf(
  rng: Rng,
  ids: IdMaker,
  base: InboxDocument,
  extracted: InboxDocument['extracted'],
  file: InboxDocument['file'],
): InboxDocument {
  const baseDay = Math.floor((Date.parse(base.received_at) - YEAR_START_MS) / DAY_MS);
  return {
    id: ids.next('doc'),
    received_at: isoTime(Math.min(LAST_DAY, baseDay + rng.int(0, 6)), rng.int(0, DAY_MS / 1000 - 1)),
    source: rng.pick(['email', 'upload', 'scan']),
    status: rng.pick(['open', 'open', 'open', 'booked', 'archived']),
    file,
    extracted,
  };
}

/** The very same file uploaded again. */
function sameFile(rng: Rng, ids: IdMaker, base: InboxDocument): InboxDocument {
  return duplicateOf(rng, ids, base, { ...base.extracted }, { ...base.file });
}

/** The same vendor and invoice number, written differently ("RE-0042" / "re 0042"). */
function sameInvoiceNumber(rng: Rng, ids: IdMaker, base: InboxDocument): InboxDocument {
  const extracted = { ...base.extracted, ...vendorVariant(rng, base.extracted) };
  if (base.extracted.invoice_number)
    extracted.invoice_number = base.extracted.invoice_number.toLowerCase().replace(/[-/]/g, ' ');
  return duplicateOf(rng, ids, base, extracted, { ...base.file, sha256: rng.hex(64), size: rng.int(20_000, 400_000) });
}

/** The same vendor and amount, invoice date 1–3 days apart, another number. */
function sameAmountNearDate(rng: Rng, ids: IdMaker, base: InboxDocument): InboxDocument {
  const extracted = { ...base.extracted, ...vendorVariant(rng, base.extracted) };
  extracted.invoice_number = `RE-${pad(rng.int(1, 9_999), 4)}`;
  if (base.extracted.invoice_date) {
    const day = Math.round((Date.parse(base.extracted.invoice_date) - YEAR_START_MS) / DAY_MS);
    extracted.invoice_date = isoDay(Math.min(LAST_DAY, day + rng.int(1, 3)));
  }
  return duplicateOf(rng, ids, base, extracted, {
    sha256: rng.hex(64),
    name: `scan_${rng.hex(6)}.pdf`,
    size: rng.int(20_000, 400_000),
    mime: 'application/pdf',
  });
}

/**
 * Looks like the base but is no duplicate: the same vendor and amount with
 * the invoice date 4–6 days later (outside the 3-day window), another number
 * and file. The overview must not group it with its base.
 */
function nearMiss(rng: Rng, ids: IdMaker, base: InboxDocument): InboxDocument {
  const extracted = { ...base.extracted };
  extracted.invoice_number = `NM-${pad(rng.int(1, 9_999), 4)}`;
  if (base.extracted.invoice_date) {
    const day = Math.round((Date.parse(base.extracted.invoice_date) - YEAR_START_MS) / DAY_MS);
    // why: no clamp to the year's last day, which could bring it back within 3 days of its base.
    extracted.invoice_date = isoDay(day + rng.int(4, 6));
  }
  return duplicateOf(rng, ids, base, extracted, {
    sha256: rng.hex(64),
    name: `scan_${rng.hex(6)}.pdf`,
    size: rng.int(20_000, 400_000),
    mime: 'application/pdf',
  });
}

/** The same vendor key written differently: tax id spacing, or name case and punctuation. */
function vendorVariant(
  rng: Rng,
  extracted: InboxDocument['extracted'],
): Pick<InboxDocument['extracted'], 'vendor_name' | 'vendor_tax_id'> {
  const out: Pick<InboxDocument['extracted'], 'vendor_name' | 'vendor_tax_id'> = {};
  if (extracted.vendor_tax_id)
    out.vendor_tax_id = extracted.vendor_tax_id.replace(/^(..)(...)(...)/, '$1 $2 $3 ').toLowerCase();
  if (extracted.vendor_name) {
    const name = extracted.vendor_name;
    out.vendor_name = rng.pick([name.toUpperCase(), `${name}.`, name.replace(/ /g, '  '), name]);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Small helpers

class IdMaker {
  private readonly counters = new Map<string, number>();
  constructor(readonly orgId: string) {}
  next(prefix: 'le' | 'bt' | 'lnk' | 'doc'): string {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}_${this.orgId}_${pad(n, 7)}`;
  }
}

/** mulberry32: a small, fast, seeded PRNG (32-bit state). */
class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.int(0, 0xffff).toString(16).padStart(4, '0');
    return out.slice(0, length);
  }
}

/** FNV-1a, 32 bits: turns (org id, seed) into the PRNG's seed. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function companyName(n: number, offset: number): string {
  const a = COMPANY_WORDS[(n + offset) % COMPANY_WORDS.length]!;
  const b = TRADE_WORDS[Math.floor(n / COMPANY_WORDS.length) % TRADE_WORDS.length]!;
  const legal = LEGAL_FORMS[n % LEGAL_FORMS.length]!;
  const round = Math.floor(n / (COMPANY_WORDS.length * TRADE_WORDS.length));
  return round === 0 ? `${a} ${b} ${legal}` : `${a} ${b} ${round + 1} ${legal}`;
}

function isoDay(day: number): IsoDate {
  return new Date(YEAR_START_MS + day * DAY_MS).toISOString().slice(0, 10);
}

function isoTime(day: number, secondOfDay: number): string {
  return new Date(YEAR_START_MS + day * DAY_MS + secondOfDay * 1000).toISOString();
}

function dayBefore(date: IsoDate): IsoDate {
  return new Date(Date.parse(date) - DAY_MS).toISOString().slice(0, 10);
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
