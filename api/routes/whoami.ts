// GET /api/v1/cli/whoami: the token's organisation, actor and scopes
// (docs/guide/review-page.md "Which actions are shown"). Any valid token; nothing
// beyond what the token itself grants is revealed.
import { Router } from 'express';
import type { Db } from 'mongodb';
import { successEnvelope } from '../../shared/contract/envelope.js';
import { isAgent } from '../../shared/domain/approval-policy.js';
import { findOrg } from '../../shared/storage/books-read.js';
import { locals } from '../context.js';

import { mountRoute } from './mount.js';

export function whoamiRoutes(db: Db): Router {
  const router = Router();
  mountRoute(router, db, 'whoami.show', async (_req, res) => {
    const { org_id, actor, scopes, agent } = locals(res).auth!;
    // The org's approval rule, by `_id`: the review page shows the creator why it cannot approve instead of a button that fails.
    const org = await findOrg(db, org_id);
    const rule = org ? { require_distinct_approver: org.require_distinct_approver } : {};
    res.json(
      successEnvelope('whoami.show', locals(res).requestId, {
        org_id,
        actor,
        scopes: [...scopes].sort(),
        agent: isAgent({ actor, agent_token: agent }),
        ...rule,
      }),
    );
  });
  return router;
}
