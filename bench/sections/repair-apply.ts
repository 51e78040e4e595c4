// A big repair applied through the API: a 10k-transaction repair (bench/lib/
// repair-books.ts) staged, approved by a second actor and applied, on a store
// that holds no other big operation, and again once `loadedOps` more such
// repairs (each in an organisation of its own) were applied before it: what an
// apply pays for the operations, journals and locks others left in the store
// (`repair/apply_s_10k_scope`, `repair/apply_s_10k_scope_loaded`). The apply
// asks for the minimal answer (`Prefer: return=minimal`, docs/reference/http-api.md
// §6.4), as a client that reviewed the plan does: the answer is the operation
// and its result, not the plan and context again.
import { pathOf } from '../../shared/contract/routes.js';
import { call, repairPath, type Call } from '../lib/http.js';
import { load, tokenFor } from '../lib/data.js';
import { BIG_ACCOUNT, BIG_COUNTERPARTY, bigRepairBooks } from '../lib/repair-books.js';
import { round } from '../lib/stats.js';
import type { BenchEnv } from './round-trip.js';

export interface RepairApplyResult {
  /** Seconds from the apply call (`Prefer: return=minimal`) to its `applied` answer, the store holding no other big operation. */
  apply_s: number;
  /** The same after `loaded_ops` repairs of the same size were applied in other organisations. */
  apply_s_loaded: number | null;
  loaded_ops: number;
}

export async function measureRepairApply(env: BenchEnv, size: number, loadedOps: number): Promise<RepairApplyResult> {
  const first = await stageApproveApply(env, 'org_ra_0', size);
  env.log(`  repair apply: a ${size}-transaction repair applied in ${first} s (stage ${lastStageS} s)`);
  const others: number[] = [];
  for (let i = 1; i <= loadedOps; i += 1) others.push(await stageApproveApply(env, `org_ra_${i}`, size));
  if (loadedOps > 0) env.log(`  repair apply: ${loadedOps} more applied in ${others.join(', ')} s`);
  const loaded = loadedOps > 0 ? await stageApproveApply(env, `org_ra_${loadedOps + 1}`, size) : null;
  if (loaded !== null) env.log(`  repair apply: with ${loadedOps} applied before it, ${loaded} s`);
  return { apply_s: first, apply_s_loaded: loaded, loaded_ops: loadedOps };
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
