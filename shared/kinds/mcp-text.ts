// Sentences every staging tool of `bookstage mcp` says (docs/guide/agents.md):
// each kind's MCP description (shared/kinds/<kind>/wire.ts) is built from them.
export const NOTHING_CHANGES =
  'Nothing in the books changes: the plan waits as a staged operation until a person approves and applies it.';
export const OUTCOMES =
  'Outcomes: "staged" (a staged operation, its id in staged_operation_id; the warning already_staged means the very same plan was already pending), ' +
  '"pending" (the plan is still being computed: call get_job with job_id, or repeat this call with the same idempotency_key), ' +
  'or an error result (isError) whose code says why it was refused and whose retryable says whether the same call may succeed later.';
export const KEY =
  'Pass idempotency_key to make a retry safe: the same key and arguments never stage twice. ' +
  'Pass dry_run: true to see the plan (plan, plan_hash, summary, warnings) without staging anything.';
