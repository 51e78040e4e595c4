// Book reads at growing org sizes: the first page, and the next page by its
// cursor, of an account's bank transactions and of a counterparty's ledger
// entries, through the real API (docs/reference/book-reads.md). A page should
// cost what its filter selects, not what the organisation holds. Then the
// reads that are whole by definition: the counterparty list of the main
// account (a read job over the account and the org's posted entries), one
// account with its book balance and unreconciled figures, and the match
// suggestions of unlinked transactions that have candidates (a read job over
// the org's open entries and documents).
import { pathOf } from '../../shared/contract/route-paths.js';
import { rebuildFigures } from '../../shared/storage/book-figures.js';
import { collections } from '../../shared/storage/collections.js';
import { call } from '../lib/http.js';
import { untilQuiet } from '../lib/cpu-split.js';
import { loadDemoOrg, tokenFor } from '../lib/data.js';
import { median, round, timed } from '../lib/stats.js';
import type { BenchEnv } from './round-trip.js';

type BySize = Record<string, number | null>;

export interface BooksReadResult {
  /** Per size, the slower of the two lists' medians. */
  first_page_ms: BySize;
  next_page_ms: BySize;
  /** first_page_ms at 100k ÷ at 1k. */
  growth_1k_to_100k: number | null;
  /** Each list's own medians. */
  by_list: Record<ListName, { first_page_ms: BySize; next_page_ms: BySize }>;
  /** GET /counterparties?bank_account_id= of the main account: its first page (50 rows), median. */
  counterparties_ms: BySize;
  /** counterparties_ms at 100k ÷ at 1k. */
  counterparties_growth_1k_to_100k?: number | null;
  /** GET /bank-accounts/{id} of the main account (book balance, unreconciled), median. */
  account_ms: BySize;
  /** account_ms at 100k ÷ at 1k. */
  account_growth_1k_to_100k?: number | null;
  /** GET /ledger/trial-balance?as_of= (the org's last booking day), median. */
  trial_balance_ms?: BySize;
  /** Building the org's kept figures from its whole books once loaded (what the worker's start-up backfill does), seconds. */
  figures_build_s?: BySize;
  /** GET /bank-transactions/{id}/match-suggestions of up to five unlinked transactions of the main account that have candidates, in turn, median. */
  suggestions_ms: BySize;
  /** suggestions_ms at 100k ÷ at 1k. */
  suggestions_growth_1k_to_100k: number | null;
}

type ListName = 'transactions_by_account' | 'entries_by_counterparty';

/** Page size of both lists: small enough that the entries of one counterparty fill more than one page. */
const LIMIT = 10;
/**
 * Page pairs per list, size and run. why this many: a page takes a few
 * milliseconds and a growth row is the ratio of two sizes' medians, which a
 * few slow reads among few samples move (bench/README.md "Latest run").
 */
const PAGES_PER_RUN = 20;
/** Whole reads (counterparty list, account, suggestions, trial balance) per size and run; fewer, each costs more. */
const WHOLE_PER_RUN = 8;
/** Match suggestions are timed over this many unlinked transactions that have candidates, in turn. */
const SUGGESTED_TRANSACTIONS = 5;

const transactionsPath = pathOf('bank_transactions.list');
const entriesPath = pathOf('ledger_entries.list');

/** The org's counterparty with the most ledger entries (ties: the smallest id), so its list has a next page. */
async function busiestCounterparty(env: BenchEnv, orgId: string): Promise<string> {
  const entries = await collections(env.db)
    .ledgerEntries.find({ org_id: orgId }, { projection: { counterparty_id: 1 } })
    .toArray();
  const counts = new Map<string, number>();
  for (const e of entries)
    if (e.counterparty_id) counts.set(e.counterparty_id, (counts.get(e.counterparty_id) ?? 0) + 1);
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  if (!best) throw new Error(`books read: no counterparty on the entries of ${orgId}`);
  return best[0];
}

/** The org's last booking day: a trial balance as of it takes in every transaction. */
async function lastBookingDate(env: BenchEnv, orgId: string): Promise<string> {
  const last = await collections(env.db)
    .bankTransactions.find({ org_id: orgId }, { projection: { booking_date: 1 } })
    .sort({ booking_date: -1 })
    .limit(1)
    .toArray();
  return last[0]?.booking_date ?? '2099-12-31';
}

/** The first transaction of the account that no link covers (the demo leaves some unlinked), else the first one. */
/**
 * Unlinked transactions of the account whose match suggestions are not empty
 * (a transaction with no candidate answers without ranking anything): up to
 * `count` of the first page of them, else the account's first transaction.
 */
async function suggestedTransactions(
  env: BenchEnv,
  token: string,
  account: string,
  count: number,
): Promise<{ ids: string[]; withCandidates: boolean }> {
  const page = async (query: string): Promise<{ ids: string[]; next: string | null }> => {
    const res = await call(
      env.baseUrl,
      token,
      'GET',
      `${transactionsPath}?bank_account_id=${encodeURIComponent(account)}${query}`,
    );
    if (res.status !== 200) throw new Error(`books read: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    const data = (res.body as { data: { items: Array<{ id: string }>; next_cursor?: string | null } }).data;
    return { ids: data.items.map((t) => t.id), next: data.next_cursor ?? null };
  };
  const found: string[] = [];
  // A link-state page looks at 5,000 records at most (docs/reference/book-reads.md "Cost"): follow its cursors.
  let cursor: string | null = null;
  let tried = 0;
  do {
    const unlinked = await page(
      `&link_state=unlinked&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const id of unlinked.ids) {
      tried += 1;
      const res = await call(env.baseUrl, token, 'GET', pathOf('match_suggestions.list', { bank_transaction_id: id }));
      const suggestions = (res.body as { data?: { suggestions?: unknown[] } }).data?.suggestions ?? [];
      if (res.status === 200 && suggestions.length > 0) found.push(id);
      if (found.length === count) break;
    }
    cursor = unlinked.next;
  } while (cursor !== null && found.length < count && tried < 100);
  if (found.length > 0) return { ids: found, withCandidates: true };
  const first = (await page('&limit=1')).ids[0];
  if (!first) throw new Error(`books read: account ${account} has no transactions`);
  return { ids: [first], withCandidates: false };
}

/** One organisation of the section, loaded and ready to be read: its token, its lists' paths and its whole reads. */
interface PreparedOrg {
  size: number;
  token: string;
  pages: Record<ListName, string>;
  whole: { counterparties: string; account: string; trialBalance: string };
  suggested: string[];
  withCandidates: boolean;
}

/** Load the organisation of `size`, build its kept figures, and pick what is read (not timed). */
async function prepareOrg(env: BenchEnv, size: number, buildS: BySize): Promise<PreparedOrg> {
  const orgId = `org_br_${size}`;
  const loadMs = await timed(() => loadDemoOrg(env.db, orgId, size));
  // The kept figures of the book reads, built as a worker's start-up backfill builds them (docs/reference/book-reads.md "Kept figures").
  const buildMs = await timed(() => rebuildFigures(env.db, orgId));
  buildS[String(size)] = round(buildMs / 1000);
  const token = await tokenFor(env.db, orgId);
  const counterparty = await busiestCounterparty(env, orgId);
  env.log(`  books read: loaded ${orgId} in ${(loadMs / 1000).toFixed(1)} s; entries of ${counterparty}`);
  const account = `ba_${orgId}_1`;
  // Several transactions that have candidates, taken in turn: one transaction's ranking is not the typical one.
  const picked = await suggestedTransactions(env, token, account, SUGGESTED_TRANSACTIONS);
  return {
    size,
    token,
    pages: {
      transactions_by_account: `${transactionsPath}?bank_account_id=${encodeURIComponent(account)}&limit=${LIMIT}`,
      entries_by_counterparty: `${entriesPath}?counterparty_id=${encodeURIComponent(counterparty)}&limit=${LIMIT}`,
    },
    whole: {
      counterparties: `${pathOf('counterparties.list')}?bank_account_id=${encodeURIComponent(account)}`,
      account: pathOf('bank_accounts.show', { bank_account_id: account }),
      trialBalance: `${pathOf('ledger.trial_balance')}?as_of=${await lastBookingDate(env, orgId)}`,
    },
    suggested: picked.ids.map((id) => pathOf('match_suggestions.list', { bank_transaction_id: id })),
    withCandidates: picked.withCandidates,
  };
}

interface OrgTimes {
  pages: Record<ListName, { first: number[]; next: number[] }>;
  counterparties: number[];
  account: number[];
  suggestions: number[];
  trialBalance: number[];
}

export async function measureBooksRead(env: BenchEnv, sizes: number[], repeat: number): Promise<BooksReadResult> {
  const lists: ListName[] = ['transactions_by_account', 'entries_by_counterparty'];
  const byList = Object.fromEntries(
    lists.map((l) => [l, { first_page_ms: {}, next_page_ms: {} }]),
  ) as BooksReadResult['by_list'];
  const first: BySize = {};
  const next: BySize = {};
  const counterpartiesMs: BySize = {};
  const accountMs: BySize = {};
  const suggestionsMs: BySize = {};
  const trialBalanceMs: BySize = {};
  const buildS: BySize = {};
  // Every size is loaded first and then read in rounds that take the sizes in turn (the order reversed each
  // round), so a growth ratio compares figures timed side by side, not minutes apart under another load.
  const orgs: PreparedOrg[] = [];
  for (const size of sizes) orgs.push(await prepareOrg(env, size, buildS));

  const get = async (org: PreparedOrg, path: string): Promise<{ ms: number; body: unknown }> => {
    const res = await call(env.baseUrl, org.token, 'GET', path);
    if (res.status !== 200)
      throw new Error(`books read ${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return { ms: res.ms, body: res.body };
  };
  const pagePair = async (org: PreparedOrg, list: ListName): Promise<{ first: number; next: number | null }> => {
    const page = await get(org, org.pages[list]);
    const cursor = (page.body as { data: { next_cursor: string | null } }).data.next_cursor;
    const after = cursor ? await get(org, `${org.pages[list]}&cursor=${encodeURIComponent(cursor)}`) : null;
    return { first: page.ms, next: after ? after.ms : null };
  };
  const wholeRead = async (org: PreparedOrg, path: string): Promise<number> => (await get(org, path)).ms;

  // Quiet first: right after the organisations' loads PostgreSQL's autovacuum
  // still works on them, and the reads would be timed against that
  // (bench/README.md "What each section measures").
  await untilQuiet(env.log, `books read, orgs of ${sizes.join(', ')}`, env.scale.quietWaitMs);
  // One of each read warms the path (connections, plans): not counted.
  for (const org of orgs) {
    for (const list of lists) await pagePair(org, list);
    for (const path of [...Object.values(org.whole), ...org.suggested]) await wholeRead(org, path);
  }
  const times = new Map<number, OrgTimes>(
    orgs.map((o) => [
      o.size,
      {
        pages: Object.fromEntries(
          lists.map((l) => [l, { first: [] as number[], next: [] as number[] }]),
        ) as OrgTimes['pages'],
        counterparties: [],
        account: [],
        suggestions: [],
        trialBalance: [],
      },
    ]),
  );
  for (let turn = 0; turn < repeat; turn += 1) {
    for (const org of turn % 2 === 0 ? orgs : [...orgs].reverse()) {
      const t = times.get(org.size)!;
      await env.profile(`book pages, org size ${org.size}`, async () => {
        for (let i = 0; i < PAGES_PER_RUN; i += 1) {
          for (const list of lists) {
            const pair = await pagePair(org, list);
            t.pages[list].first.push(pair.first);
            if (pair.next !== null) t.pages[list].next.push(pair.next);
          }
        }
      });
      await env.profile(`counterparties, account and suggestions, org size ${org.size}`, async () => {
        for (let i = 0; i < WHOLE_PER_RUN; i += 1) {
          t.counterparties.push(await wholeRead(org, org.whole.counterparties));
          t.account.push(await wholeRead(org, org.whole.account));
          t.suggestions.push(await wholeRead(org, org.suggested[t.suggestions.length % org.suggested.length]!));
          t.trialBalance.push(await wholeRead(org, org.whole.trialBalance));
        }
      });
    }
  }

  for (const org of orgs) {
    const key = String(org.size);
    const t = times.get(org.size)!;
    for (const list of lists) {
      byList[list].first_page_ms[key] = round(median(t.pages[list].first));
      byList[list].next_page_ms[key] = t.pages[list].next.length > 0 ? round(median(t.pages[list].next)) : null;
    }
    const worst = (pick: (l: ListName) => number | null): number | null => {
      const values = lists.map(pick).filter((v): v is number => v !== null);
      return values.length > 0 ? Math.max(...values) : null;
    };
    first[key] = worst((l) => byList[l].first_page_ms[key] ?? null);
    next[key] = worst((l) => byList[l].next_page_ms[key] ?? null);
    counterpartiesMs[key] = round(median(t.counterparties));
    accountMs[key] = round(median(t.account));
    suggestionsMs[key] = round(median(t.suggestions));
    trialBalanceMs[key] = round(median(t.trialBalance));
    env.log(
      `  books read: figures built in ${buildS[key]} s; pages ${first[key]} ms, counterparties ${counterpartiesMs[key]} ms, account ${accountMs[key]} ms, suggestions ${suggestionsMs[key]} ms (${org.withCandidates ? `${org.suggested.length} transactions with candidates` : 'no unlinked transaction with candidates among the first 100: the first transaction, nothing ranked'}), trial balance ${trialBalanceMs[key]} ms at ${org.size}`,
    );
  }
  const growth = first['1000'] && first['100000'] ? round(first['100000'] / first['1000']) : null;
  const growthOf = (m: BySize): number | null => (m['1000'] && m['100000'] ? round(m['100000'] / m['1000']) : null);
  return {
    first_page_ms: first,
    next_page_ms: next,
    growth_1k_to_100k: growth,
    by_list: byList,
    counterparties_ms: counterpartiesMs,
    counterparties_growth_1k_to_100k: growthOf(counterpartiesMs),
    account_ms: accountMs,
    account_growth_1k_to_100k: growthOf(accountMs),
    trial_balance_ms: trialBalanceMs,
    figures_build_s: buildS,
    suggestions_ms: suggestionsMs,
    suggestions_growth_1k_to_100k:
      suggestionsMs['1000'] && suggestionsMs['100000'] ? round(suggestionsMs['100000'] / suggestionsMs['1000']) : null,
  };
}
