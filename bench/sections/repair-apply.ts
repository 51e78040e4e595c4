// A big repair applied through the API: a 10k-transaction repair (bench/lib/
// repair-books.ts) staged, approved by a second actor and applied, each in an
// organisation of its own: the median of the first `runs` applies
// (`repair/apply_s_10k_scope`), and of `runs` more once at least `loadedOps`
// such repairs were applied before them (`repair/apply_s_10k_scope_loaded`):
// what an apply pays for the operations, journals and locks others left in
// the store. The apply asks for the minimal answer (`Prefer: return=minimal`,
// docs/reference/http-api.md §6.4), as a client that reviewed the plan does:
// the answer is the operation and its result, not the plan and context again.
import { pathOf } from '../../shared/contract/route-paths.js';
import { call, repairPath, type Call } from '../lib/http.js';
import { load, tokenFor } from '../lib/data.js';
import { BIG_ACCOUNT, BIG_COUNTERPARTY, bigRepairBooks } from '../lib/repair-books.js';
import { median, round } from '../lib/stats.js';
import type { BenchEnv } from './round-trip.js';

export interface RepairApplyResult {
  /** Median seconds from the apply call (`Prefer: return=minimal`) to its `applied` answer, of the first `runs` applies. */
  apply_s: number;
  /** Each of those applies, in order: the store held 0, 1, … other big operations. */
  apply_s_runs: number[];
  /** The same median once at least `loaded_ops` repairs of the same size were applied in other organisations. */
  apply_s_loaded: number | null;
  apply_s_loaded_runs: number[];
  loaded_ops: number;
}

/** The applies of a series, in order: the first `runs`, those that load the store, and `runs` more after them. */
export interface ApplySeries {
  first: number[];
  others: number[];
  loaded: number[];
}

/**
 * `apply` called `runs` times, then until `loadedOps` applies were made (the
 * first ones count), then `runs` more when `loadedOps` > 0: every one of
 * `loaded` has at least `loadedOps` applies before it.
 */
export async function applySeries(
  runs: number,
  loadedOps: number,
  apply: (n: number) => Promise<number>,
): Promise<ApplySeries> {
  let made = 0;
  const next = () => apply(made++);
  const first: number[] = [];
  for (let i = 0; i < runs; i += 1) first.push(await next());
  const others: number[] = [];
  while (loadedOps > 0 && made < loadedOps) others.push(await next());
  const loaded: number[] = [];
  if (loadedOps > 0) for (let i = 0; i < runs; i += 1) loaded.push(await next());
  return { first, others, loaded };
}

export async function measureRepairApply(
  env: BenchEnv,
  size: number,
  loadedOps: number,
  runs: number,
): Promise<RepairApplyResult> {
  const series = await applySeries(runs, loadedOps, async (n) => {
    const s = await stageApproveApply(env, `org_ra_${n}`, size);
    if (n < runs) env.log(`  repair apply: a ${size}-transaction repair applied in ${s} s (stage ${lastStageS} s)`);
    return s;
  });
  const { first, others, loaded } = series;
  const before = first.length + others.length;
  if (others.length > 0) env.log(`  repair apply: ${others.length} more applied in ${others.join(', ')} s`);
  if (loaded.length > 0) env.log(`  repair apply: with ${before} or more applied before each, ${loaded.join(', ')} s`);
  return {
    apply_s: round(median(first)),
    apply_s_runs: first,
    apply_s_loaded: loaded.length > 0 ? round(median(loaded)) : null,
    apply_s_loaded_runs: loaded,
    loaded_ops: loadedOps,
  };
}

let lastStageS = 0;

/** Load the org's books, stage its repair, approve it as a second actor, apply it: seconds from the apply call to `applied`. */
async function stageApproveApply(env: BenchEnv, orgId: string, size: number): Promise<number> {
  await load(env.db, bigRepairBooks(orgId, size));
  const author = await tokenFor(env.db, orgId);
  const reviewer = await tokenFor(env.db, orgId, 'bench-reviewer');
  const stageStart = performance.now();
  const staged = await settle(
    env,
    author,
    await call(env.baseUrl, author, 'POST', repairPath, {
      bank_account_id: BIG_ACCOUNT(orgId),
      counterparty_id: BIG_COUNTERPARTY(orgId),
    }),
  );
  lastStageS = round((performance.now() - stageStart) / 1000);
  const id = (staged.body as { data?: { staged_operation_id?: string } }).data?.staged_operation_id;
  if (staged.status !== 201 || !id) throw new Error(`staging ${orgId}'s repair answered ${staged.status}`);
  const approved = await call(env.baseUrl, reviewer, 'POST', pathOf('staged_operations.approve', { id }), {}, MINIMAL);
  if (approved.status !== 200) throw new Error(`approving ${id} answered ${approved.status}`);
  const start = performance.now();
  const answer = await settle(
    env,
    reviewer,
    await call(env.baseUrl, reviewer, 'POST', pathOf('staged_operations.apply', { id }), {}, MINIMAL),
    MINIMAL,
  );
  const status = (answer.body as { data?: { status?: string } }).data?.status;
  if (answer.status !== 200 || status !== 'applied')
    throw new Error(`applying ${id} answered ${answer.status} ${status ?? JSON.stringify(answer.body)}`);
  return round((performance.now() - start) / 1000);
}

const MINIMAL = { prefer: 'return=minimal' };

/** Poll a call's job past the API's wait (202) until it answers. */
async function settle(env: BenchEnv, token: string, first: Call, headers: Record<string, string> = {}): Promise<Call> {
  let answer = first;
  while (answer.status === 202) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const jobId = (answer.body as { data: { job_id: string } }).data.job_id;
    answer = await call(env.baseUrl, token, 'GET', pathOf('jobs.show', { job_id: jobId }), undefined, headers);
  }
  return answer;
}
