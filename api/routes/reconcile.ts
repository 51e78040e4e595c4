import { Router } from 'express';
import type { Db } from 'mongodb';
import { AppError } from '../../shared/errors.js';
import { reconcileStageRequestSchema, type ReconcileStageRequestBody } from '../../shared/schemas/reconcile-stage.js';
import { compile } from '../../shared/schemas/validator.js';
import { requireScope } from '../middleware/auth.js';
import { operation } from '../middleware/request-id.js';
import { runStage, type StageDeps } from '../stage-handler.js';

const OPERATION = 'bank_reconcile.stage';
const validateBody = compile<ReconcileStageRequestBody>(reconcileStageRequestSchema);

export function reconcileRoutes(db: Db, deps: StageDeps): Router {
  const router = Router();
  router.post('/api/v1/cli/bank-matches/reconcile/stage', operation(OPERATION), requireScope(db, 'bank:stage'), async (req, res) => {
    // The body is required: no body validates as {} and names every missing field.
    const body = validateBody(req.body === undefined ? {} : req.body);
    if (!body.ok) throw new AppError('validation_failed', { errors: body.errors });
    await runStage(deps, res, OPERATION, { ...body.value });
  });
  return router;
}
