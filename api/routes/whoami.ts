// GET /api/v1/cli/whoami: the token's organisation, actor and scopes
// (docs/guide/review-page.md "Which actions are shown"). Any valid token; nothing
// beyond what the token itself grants is revealed.
import { Router } from 'express';
import type { Db } from 'mongodb';
import { successEnvelope } from '../../shared/contract/envelope.js';
import { locals } from '../context.js';

import { mountRoute } from './mount.js';

export function whoamiRoutes(db: Db): Router {
  const router = Router();
  mountRoute(router, db, 'whoami.show', (_req, res) => {
    const { org_id, actor, scopes } = locals(res).auth!;
    res.json(successEnvelope('whoami.show', locals(res).requestId, { org_id, actor, scopes: [...scopes].sort() }));
  });
  return router;
}
