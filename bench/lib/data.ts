// What the bench loads: demo books (shared/demo/books-generator.ts) through
// the importer's bulk writes, a plain inbox of any size for the duplicate
// overview, and picks of work that really stages (entries to reverse, pairs
// to repair).
import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { importBooks } from '../../shared/books/import.js';
import type { BooksFile } from '../../shared/domain/books-file.js';
import { generateBooks } from '../../shared/demo/books-generator.js';
import { TOKEN_SCOPES } from '../../shared/domain/token-scopes.js';
import { createToken } from '../../shared/storage/api-tokens.js';
import { collections } from '../../shared/storage/collections.js';

export async function load(db: Db, file: BooksFile): Promise<void> {
  const result = await importBooks(db, file);
  if (!result.ok) throw new Error(`bench books refused: ${JSON.stringify(result.errors.slice(0, 3))}`);
}

export async function loadDemoOrg(db: Db, orgId: string, size: number): Promise<void> {
  await load(db, generateBooks({ org_id: orgId, size, seed: 1 }));
}

/** A token with every scope, for the org. */
/** A token with every scope; `actor` apart from the default when a second person must approve. */
export async function tokenFor(db: Db, orgId: string, actor = 'bench'): Promise<string> {
  return (await createToken(db, { org_id: orgId, actor, scopes: [...TOKEN_SCOPES] })).token;
}

/**
 * Posted entries of the org whose reversal stages: not reversals, not
 * touching a reconciled transaction, and no two sharing a transaction (their
 * plan locks would conflict).
 */
export async function reversibleEntries(db: Db, orgId: string): Promise<string[]> {
  const c = collections(db);
  const [entries, links, transactions] = await Promise.all([
    c.ledgerEntries.find({ org_id: orgId }, { projection: { _id: 1, status: 1, reversal_of: 1 } }).toArray(),
    c.bankLinks.find({ org_id: orgId }, { projection: { ledger_entry_id: 1, bank_transaction_id: 1 } }).toArray(),
    c.bankTransactions.find({ org_id: orgId }, { projection: { _id: 1, status: 1 } }).toArray(),
  ]);
  const reconciled = new Set(transactions.filter((t) => t.status === 'reconciled').map((t) => t._id));
  const txnsOf = new Map<string, string[]>();
  for (const l of links)
    txnsOf.set(l.ledger_entry_id, [...(txnsOf.get(l.ledger_entry_id) ?? []), l.bank_transaction_id]);
  const taken = new Set<string>();
  const picked: string[] = [];
  for (const e of entries.sort((a, b) => (a._id < b._id ? -1 : 1))) {
    if (e.status !== 'posted' || e.reversal_of) continue;
    const txns = txnsOf.get(e._id) ?? [];
    if (txns.some((t) => reconciled.has(t) || taken.has(t))) continue;
    for (const t of txns) taken.add(t);
    picked.push(e._id);
  }
  return picked;
}

export interface RepairPair {
  bank_account_id: string;
  counterparty_id: string;
  transactions: number;
}

/** (account, counterparty) pairs with unreconciled transactions, grouped by how many transactions the pair has. */
export async function repairPairs(db: Db, orgId: string): Promise<Map<number, RepairPair[]>> {
  const txns = await collections(db)
    .bankTransactions.find({ org_id: orgId }, { projection: { bank_account_id: 1, counterparty_id: 1, status: 1 } })
    .toArray();
  const counts = new Map<string, { all: number; open: number }>();
  for (const t of txns) {
    const key = `${t.bank_account_id} ${t.counterparty_id}`;
    const c = counts.get(key) ?? { all: 0, open: 0 };
    c.all += 1;
    if (t.status === 'unreconciled') c.open += 1;
    counts.set(key, c);
  }
  const bySize = new Map<number, RepairPair[]>();
  for (const [key, c] of [...counts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (c.open === 0) continue;
    const [bank_account_id, counterparty_id] = key.split(' ') as [string, string];
    bySize.set(c.all, [...(bySize.get(c.all) ?? []), { bank_account_id, counterparty_id, transactions: c.all }]);
  }
  return bySize;
}

/**
 * A deterministic inbox of `n` documents with duplicates of every kind (the
 * same file again, a re-keyed invoice number, the same amount and vendor a few
 * days apart); no ledger.
 */
export function inboxFile(orgId: string, n: number, seed: number): BooksFile {
  let state = seed >>> 0;
  const rand = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const docs: BooksFile['inbox_documents'] = [];
  let t = Date.UTC(2025, 0, 1);
  for (let i = 0; i < n; i++) {
    t += Math.floor(rand() * 40 * 60_000);
    const r = rand();
    const base = docs.length > 0 ? pick(docs) : null;
    const own = {
      vendor_name: `Vendor ${Math.floor(rand() * 400)} GmbH`,
      invoice_number: `INV-${orgId}-${i}`,
      invoice_date: new Date(Date.UTC(2025, 0, 1) + Math.floor(rand() * 365) * 86_400_000).toISOString().slice(0, 10),
      total_minor: 1000 + Math.floor(rand() * 500_000),
      currency: 'EUR',
    };
    let sha = createHash('sha256').update(`${orgId}-${i}`).digest('hex');
    let extracted: Record<string, unknown> = own;
    if (base && r < 0.1)
      sha = base.file.sha256; // the same file again
    else if (base && r < 0.15)
      extracted = {
        ...own,
        vendor_name: String(base.extracted.vendor_name).toUpperCase(),
        invoice_number: ` ${String(base.extracted.invoice_number).toLowerCase()}`,
      };
    else if (base && r < 0.2) {
      const day = Date.parse(String(base.extracted.invoice_date)) + Math.floor(rand() * 4) * 86_400_000;
      extracted = {
        ...own,
        vendor_name: base.extracted.vendor_name,
        total_minor: base.extracted.total_minor,
        invoice_date: new Date(day).toISOString().slice(0, 10),
      };
    }
    const s = rand();
    docs.push({
      id: `doc_${orgId}_${i}`,
      received_at: new Date(t).toISOString(),
      source: 'email',
      status: s < 0.7 ? 'open' : s < 0.95 ? 'booked' : 'archived',
      file: { sha256: sha, name: `scan-${i}.pdf`, size: 50_000 + i, mime: 'application/pdf' },
      extracted,
    });
  }
  return {
    org: {
      id: orgId,
      name: orgId,
      base_currency: 'EUR',
      lock_date: null,
      settlement_accounts: ['1400', '1600'],
      require_distinct_approver: true,
    },
    ledger_entries: [],
    bank_accounts: [],
    bank_transactions: [],
    bank_links: [],
    inbox_documents: docs,
  };
}

/** A transaction of the main account with something left unlinked, and an open entry it could be matched to. */
export interface MatchPair {
  bank_account_id: string;
  bank_transaction_id: string;
  ledger_entry_id: string;
}

/**
 * Up to `max` pairs of an unreconciled transaction of the org's main account
 * with something left unlinked and an open entry of its currency and direction
 * (the stored open amounts: docs/design/entry-open-amounts.md), each
 * transaction and entry once, so that a match of 1 minor unit of each stages.
 */
export async function matchPairs(db: Db, orgId: string, max = 200): Promise<MatchPair[]> {
  const c = collections(db);
  const account = `ba_${orgId}_1`;
  const [transactions, links, open] = await Promise.all([
    c.bankTransactions
      .find({ org_id: orgId, bank_account_id: account }, { projection: { amount_minor: 1, currency: 1, status: 1 } })
      .toArray(),
    c.bankLinks.find({ org_id: orgId }, { projection: { bank_transaction_id: 1, amount_minor: 1 } }).toArray(),
    c.entryOpenAmounts.find({ org_id: orgId }, { projection: { currency: 1, direction: 1 } }).toArray(),
  ]);
  const linked = new Map<string, number>();
  for (const l of links) linked.set(l.bank_transaction_id, (linked.get(l.bank_transaction_id) ?? 0) + l.amount_minor);
  const entries = new Map<string, string[]>();
  for (const e of open.sort((a, b) => (a._id < b._id ? -1 : 1)))
    entries.set(`${e.currency} ${e.direction}`, [...(entries.get(`${e.currency} ${e.direction}`) ?? []), e._id]);
  const pairs: MatchPair[] = [];
  for (const t of transactions.sort((a, b) => (a._id < b._id ? -1 : 1))) {
    if (pairs.length >= max) break;
    if (t.status !== 'unreconciled' || Math.abs(t.amount_minor) - (linked.get(t._id) ?? 0) <= 0) continue;
    const entry = entries.get(`${t.currency} ${t.amount_minor > 0 ? 'in' : 'out'}`)?.shift();
    if (entry) pairs.push({ bank_account_id: account, bank_transaction_id: t._id, ledger_entry_id: entry });
  }
  return pairs;
}
