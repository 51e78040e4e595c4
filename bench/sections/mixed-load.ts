// Mixed load: 50 concurrent clients × 20 calls, a seventh each duplicate
// overview page, reversal stage, link repair stage, book read (an entry by
// id or a page of transactions, in turn), journal entry stage, bank match
// stage and match suggestions, over two 2,000-size demo orgs (fresh ones
// each run).
//
// One run, not counted, warms the API and worker first (bench/README.md
// "What each section measures"): the first run of these paths in a process
// pays for V8 compiling them.
//
// BENCH_MIX_KINDS=duplicates,reverse,repair,books,entries,matches,suggestions (default: all) keeps only
// some kinds, each client taking them in turn: the CPU split of a one-kind
// run is what that kind costs per request (the profile behind bench/README.md).
import { pathOf } from '../../shared/contract/route-paths.js';
import { call, duplicatesPath, entryPath, repairPath, reversePath, transactionsPagePath } from '../lib/http.js';
import {
  loadDemoOrg,
  matchPairs,
  repairPairs,
  reversibleEntries,
  tokenFor,
  type MatchPair,
  type RepairPair,
} from '../lib/data.js';
import { quantile, round } from '../lib/stats.js';
import type { BenchEnv } from './round-trip.js';

export interface MixedLoadResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors_5xx: number;
  /** Each kind's own p99 (0 for a kind left out by BENCH_MIX_KINDS): which calls make the tail. */
  p99_duplicates_ms: number;
  p99_reverse_ms: number;
  p99_repair_ms: number;
  p99_books_ms: number;
  p99_entries_ms: number;
  p99_matches_ms: number;
  p99_suggestions_ms: number;
}

/** One run's figures and the API's and workers' CPU per call in it (from the run's own CPU split). */
export type MixedLoadRun = MixedLoadResult & { own_cpu_ms_per_call: number };

interface OrgWork {
  token: string;
  entries: string[];
  pairs: RepairPair[];
  matches: MatchPair[];
}

const KINDS = ['duplicates', 'reverse', 'repair', 'books', 'entries', 'matches', 'suggestions'] as const;

const journalEntryPath = pathOf('journal_entry.stage');
const bankMatchPath = pathOf('bank_match.stage');

/** A bank fee booked on the demo chart, its amount `n + 1` so that every call is an entry of its own (the id follows the body). */
const feeEntry = (counterparty: string, n: number) => ({
  entry_date: '2025-06-16',
  description: 'Bench bank fee',
  reference: `BENCH-FEE-${n}`,
  counterparty_id: counterparty,
  currency: 'EUR',
  lines: [
    { account: '6855', debit_minor: n + 1, credit_minor: 0 },
    { account: '1600', debit_minor: 0, credit_minor: n + 1 },
  ],
});

function mixKinds(): number[] {
  const wanted = (process.env.BENCH_MIX_KINDS ?? '').split(',').filter(Boolean);
  if (wanted.length === 0) return KINDS.map((_, i) => i);
  return wanted.map((name) => {
    const i = (KINDS as readonly string[]).indexOf(name);
    if (i < 0) throw new Error(`BENCH_MIX_KINDS: ${name} is none of ${KINDS.join(', ')}`);
    return i;
  });
}

/** `label`: the CPU split the runs add to ('mixed load'; the warm-up run has one of its own). */
export function mixedLoadRun(env: BenchEnv, label = 'mixed load'): (run: number | string) => Promise<MixedLoadRun> {
  return async (run) => {
    const orgs: OrgWork[] = [];
    for (const side of ['a', 'b']) {
      const orgId = `org_mx_${run}_${side}`;
      await loadDemoOrg(env.db, orgId, env.scale.orgSize);
      const pairs = [...(await repairPairs(env.db, orgId)).values()].flat();
      orgs.push({
        token: await tokenFor(env.db, orgId),
        entries: await reversibleEntries(env.db, orgId),
        pairs,
        matches: await matchPairs(env.db, orgId),
      });
      if (orgs.at(-1)!.matches.length === 0) throw new Error(`mixed load: ${orgId} has no transaction to match`);
    }
    const { mixClients, mixCalls } = env.scale;
    const kinds = mixKinds();
    const times: number[] = [];
    const byKind: number[][] = KINDS.map(() => []);
    let errors5xx = 0;
    let other = 0;
    let counter = 0;
    const ownBefore = ownCpuOf(env, label);
    const start = performance.now();
    await env.profile(label, () =>
      Promise.all(
        Array.from({ length: mixClients }, async (_, client) => {
          for (let i = 0; i < mixCalls; i += 1) {
            const n = counter++;
            const org = orgs[client % 2]!;
            const kind = kinds[(client + i) % kinds.length]!;
            // Entries and pairs are taken in turn; once each was staged, a call meets its pending operation (200, the same plan).
            const repair = org.pairs[n % org.pairs.length]!;
            const match = org.matches[n % org.matches.length]!;
            const c =
              kind === 0
                ? await call(env.baseUrl, org.token, 'GET', `${duplicatesPath}?limit=50`)
                : kind === 1
                  ? await call(env.baseUrl, org.token, 'POST', reversePath(org.entries[n % org.entries.length]!), {
                      reason: 'bench',
                    })
                  : kind === 2
                    ? await call(env.baseUrl, org.token, 'POST', repairPath, {
                        bank_account_id: repair.bank_account_id,
                        counterparty_id: repair.counterparty_id,
                      })
                    : kind === 3
                      ? await call(
                          env.baseUrl,
                          org.token,
                          'GET',
                          n % 2 === 0 ? entryPath(org.entries[n % org.entries.length]!) : transactionsPagePath,
                        )
                      : kind === 4
                        ? await call(
                            env.baseUrl,
                            org.token,
                            'POST',
                            journalEntryPath,
                            feeEntry(repair.counterparty_id, n),
                          )
                        : kind === 5
                          ? await call(env.baseUrl, org.token, 'POST', bankMatchPath, {
                              bank_account_id: match.bank_account_id,
                              matches: [
                                {
                                  bank_transaction_id: match.bank_transaction_id,
                                  ledger_entry_id: match.ledger_entry_id,
                                  amount_minor: 1,
                                },
                              ],
                            })
                          : await call(
                              env.baseUrl,
                              org.token,
                              'GET',
                              pathOf('match_suggestions.list', { bank_transaction_id: match.bank_transaction_id }),
                            );
            times.push(c.ms);
            byKind[kind]!.push(c.ms);
            if (c.status >= 500) errors5xx += 1;
            else if (c.status >= 300 && c.status !== 409) other += 1;
          }
        }),
      ),
    );
    const seconds = (performance.now() - start) / 1000;
    if (other > 0) env.log(`  mixed load: ${other} answers neither 2xx, 409 nor 5xx`);
    const calls = mixClients * mixCalls;
    const p99Of = (kind: number): number => (byKind[kind]!.length > 0 ? round(quantile(byKind[kind]!, 0.99)) : 0);
    return {
      own_cpu_ms_per_call: round(((ownCpuOf(env, label) - ownBefore) * 1000) / calls),
      rps: round(calls / seconds),
      p50_ms: round(quantile(times, 0.5)),
      p99_ms: round(quantile(times, 0.99)),
      errors_5xx: errors5xx,
      p99_duplicates_ms: p99Of(0),
      p99_reverse_ms: p99Of(1),
      p99_repair_ms: p99Of(2),
      p99_books_ms: p99Of(3),
      p99_entries_ms: p99Of(4),
      p99_matches_ms: p99Of(5),
      p99_suggestions_ms: p99Of(6),
    };
  };
}

/** CPU seconds of the API and workers under `label` so far. */
function ownCpuOf(env: BenchEnv, label: string): number {
  const split = env.split(label);
  return split ? split.cpu_s.api + split.cpu_s.worker : 0;
}
