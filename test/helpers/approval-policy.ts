// Setting an organisation's approval policy through the API, as a person does:
// stage the change (policy:stage), have another person approve it, apply it
// (docs/design/staged-lifecycle.md "Approval policies").
import { expect } from 'chai';
import { call } from './http.js';
import { stack } from './stack.js';
import { apply, approve } from './staged.js';

export interface PolicyBody {
  rules: Array<{ kinds: string[]; min_amount_minor?: number; approvals: number; approvers: 'any' | 'people' }>;
  agents_may_approve: boolean;
  unattended: Array<{ actor: string; kinds: string[]; max_amount_minor: number; max_per_day_minor: number }>;
}

/** Put `policy` in force for `orgId` (staged by `policy-admin`, approved and applied by `policy-approver`); answers its version. */
export async function setPolicy(orgId: string, policy: PolicyBody): Promise<number> {
  const s = await stack();
  const admin = await s.token(orgId, ['policy:stage', 'staged:read'], 'policy-admin');
  const approver = await s.token(orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'policy-approver');
  const staged = await call<{ staged_operation_id: string; plan: { version: number } }>(
    'POST',
    '/api/v1/cli/approval-policy/stage',
    { token: admin, body: policy },
  );
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = staged.body.data.staged_operation_id;
  expect((await approve(approver, id)).status).to.equal(200);
  const applied = await apply(approver, id);
  expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  return staged.body.data.plan.version;
}
