// GET /api/v1/cli/approval-policy (docs/design/staged-lifecycle.md "Approval
// policies"): the organisation's policy in force. Read directly: one indexed
// read of the highest version, nothing to compute.
import { Router } from 'express';
import type { Db } from 'mongodb';
import { successEnvelope } from '../../shared/contract/envelope.js';
import { findCurrentPolicyAnswer } from '../../shared/storage/approval-policies.js';
import { locals } from '../context.js';
import { mountRoute } from './mount.js';

export function approvalPolicyRoutes(db: Db): Router {
  const router = Router();
  mountRoute(router, db, 'approval_policy.show', async (_req, res) => {
    const policy = await findCurrentPolicyAnswer(db, locals(res).auth!.org_id);
    res.json(
      successEnvelope('approval_policy.show', locals(res).requestId, {
        version: policy.version,
        // Every member spelt out: a rule without a minimum governs from 0.
        rules: policy.rules.map((r) => ({
          kinds: r.kinds,
          min_amount_minor: r.min_amount_minor ?? 0,
          approvals: r.approvals,
          approvers: r.approvers,
        })),
        agents_may_approve: policy.agents_may_approve,
        unattended: policy.unattended,
        updated_at: policy.updated_at,
        updated_by_operation: policy.updated_by_operation,
      }),
    );
  });
  return router;
}
