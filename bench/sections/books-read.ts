// Book reads at growing org sizes: the first page, and the next page by its
// cursor, of an account's bank transactions and of a counterparty's ledger
// entries, through the real API (docs/reference/book-reads.md). A page should
// cost what its filter selects, not what the organisation holds. Then the
// reads that are whole by definition: the counterparty list of the main
// account (a read job over the account and the org's posted entries), one
// account with its book balance and unreconciled figures, and the match
// suggestions of unlinked transactions that have candidates (a read job over
// the org's open entries and documents).
import { pathOf } from '../../shared/contract/routes.js';
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
const PAGES_PER_RUN = 5;
/** Whole reads (counterparty list, account) per run: fewer, each reads the whole account. */
const WHOLE_PER_RUN = 3;
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
  for (const size of sizes) {
    const orgId = `org_br_${size}`;
    const loadMs = await timed(() => loadDemoOrg(env.db, orgId, size));
    // The kept figures of the book reads, built as a worker's start-up backfill builds them (docs/reference/book-reads.md "Kept figures").
    const buildMs = await timed(() => rebuildFigures(env.db, orgId));
    buildS[String(size)] = round(buildMs / 1000);
    const token = await tokenFor(env.db, orgId);
    const counterparty = await busiestCounterparty(env, orgId);
    env.log(`  books read: loaded ${orgId} in ${(loadMs / 1000).toFixed(1)} s; entries of ${counterparty}`);
    const paths: Record<ListName, string> = {
      transactions_by_account: `${transactionsPath}?bank_account_id=${encodeURIComponent(`ba_${orgId}_1`)}&limit=${LIMIT}`,
      entries_by_counterparty: `${entriesPath}?counterparty_id=${encodeURIComponent(counterparty)}&limit=${LIMIT}`,
    };
    const pagePair = async (list: ListName): Promise<{ first: number; next: number | null }> => {
      const page = await call(env.baseUrl, token, 'GET', paths[list]);
      if (page.status !== 200)
        throw new Error(`books read ${list}: HTTP ${page.status} ${JSON.stringify(page.body).slice(0, 300)}`);
      const cursor = (page.body as { data: { next_cursor: string | null } }).data.next_cursor;
      const after = cursor
        ? await call(env.baseUrl, token, 'GET', `${paths[list]}&cursor=${encodeURIComponent(cursor)}`)
        : null;
      if (after && after.status !== 200)
        throw new Error(
          `books read ${list} next page: HTTP ${after.status} ${JSON.stringify(after.body).slice(0, 300)}`,
        );
      return { first: page.ms, next: after ? after.ms : null };
    };
    // Quiet first: right after the organisation's load PostgreSQL's autovacuum
    // still works on it, and the pages would be timed against that
    // (bench/README.md "What each section measures").
    await untilQuiet(env.log, `books read, pages of ${orgId}`, env.scale.quietWaitMs);
    // One pair of each list warms the path (connections, plans): not counted.
    for (const list of lists) await pagePair(list);
    const times = Object.fromEntries(lists.map((l) => [l, { first: [] as number[], next: [] as number[] }])) as Record<
      ListName,
      { first: number[]; next: number[] }
    >;
    await env.profile(`book pages, org size ${size}`, async () => {
      for (let i = 0; i < repeat * PAGES_PER_RUN; i += 1) {
        for (const list of lists) {
          const pair = await pagePair(list);
          times[list].first.push(pair.first);
          if (pair.next !== null) times[list].next.push(pair.next);
        }
      }
    });
    const key = String(size);
    for (const list of lists) {
      byList[list].first_page_ms[key] = round(median(times[list].first));
      byList[list].next_page_ms[key] = times[list].next.length > 0 ? round(median(times[list].next)) : null;
    }
    const worst = (pick: (l: ListName) => number | null): number | null => {
      const values = lists.map(pick).filter((v): v is number => v !== null);
      return values.length > 0 ? Math.max(...values) : null;
    };
    first[key] = worst((l) => byList[l].first_page_ms[key] ?? null);
    next[key] = worst((l) => byList[l].next_page_ms[key] ?? null);

    const account = `ba_${orgId}_1`;
    const whole = async (path: string): Promise<number> => {
      const res = await call(env.baseUrl, token, 'GET', path);
      if (res.status !== 200)
        throw new Error(`books read ${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      return res.ms;
    };
    const wholePaths = {
      counterparties: `${pathOf('counterparties.list')}?bank_account_id=${encodeURIComponent(account)}`,
      account: pathOf('bank_accounts.show', { bank_account_id: account }),
      trialBalance: `${pathOf('ledger.trial_balance')}?as_of=${await lastBookingDate(env, orgId)}`,
    };
    // Several transactions that have candidates, taken in turn: one transaction's ranking is not the typical one.
    const picked = await suggestedTransactions(env, token, account, SUGGESTED_TRANSACTIONS);
    const suggested = picked.ids.map((id) => pathOf('match_suggestions.list', { bank_transaction_id: id }));
    // One of each warms the path: not counted.
    for (const path of [...Object.values(wholePaths), ...suggested]) await whole(path);
    const wholeTimes = {
      counterparties: [] as number[],
      account: [] as number[],
      suggestions: [] as number[],
      trialBalance: [] as number[],
    };
    await env.profile(`counterparties, account and suggestions, org size ${size}`, async () => {
      for (let i = 0; i < repeat * WHOLE_PER_RUN; i += 1) {
        wholeTimes.counterparties.push(await whole(wholePaths.counterparties));
        wholeTimes.account.push(await whole(wholePaths.account));
        wholeTimes.suggestions.push(await whole(suggested[i % suggested.length]!));
        wholeTimes.trialBalance.push(await whole(wholePaths.trialBalance));
      }
    });
    counterpartiesMs[key] = round(median(wholeTimes.counterparties));
    accountMs[key] = round(median(wholeTimes.account));
    suggestionsMs[key] = round(median(wholeTimes.suggestions));
    trialBalanceMs[key] = round(median(wholeTimes.trialBalance));
    env.log(
      `  books read: figures built in ${buildS[key]} s; counterparties ${counterpartiesMs[key]} ms, account ${accountMs[key]} ms, suggestions ${suggestionsMs[key]} ms (${picked.withCandidates ? `${picked.ids.length} transactions with candidates` : 'no unlinked transaction with candidates among the first 100: the first transaction, nothing ranked'}), trial balance ${trialBalanceMs[key]} ms at ${size}`,
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
