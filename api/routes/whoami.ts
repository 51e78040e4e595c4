// GET /api/v1/cli/whoami: the token's organisation, actor and scopes
// (docs/guide/review-page.md "Which actions are shown"). Any valid token; nothing
// beyond what the token itself grants is revealed.
import { Router } from 'express';
import type { Db } from 'mongodb';
import { successEnvelope } from '../../shared/envelope.js';
import { locals } from '../context.js';
import { requireAuth } from '../middleware/auth.js';
import { operation } from '../middleware/request-id.js';

export function whoamiRoutes(db: Db): Router {
  const router = Router();
  router.get('/api/v1/cli/whoami', operation('whoami.show'), requireAuth(db), (_req, res) => {
    const { org_id, actor, scopes } = locals(res).auth!;
    res.json(successEnvelope('whoami.show', locals(res).requestId, { org_id, actor, scopes: [...scopes].sort() }));
  });
  return router;
}
