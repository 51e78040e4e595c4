import { Router } from 'express';
import type { Db } from 'mongodb';
import { AppError } from '../../shared/errors.js';
import { reversalStageParamsSchema, reversalStageRequestSchema, type ReversalStageRequestBody } from '../../shared/schemas/reversal-stage.js';
import { compile } from '../../shared/schemas/validator.js';
import { requireScope } from '../middleware/auth.js';
import { operation } from '../middleware/request-id.js';
import { runStage, type StageDeps } from '../stage-handler.js';

const OPERATION = 'ledger_reversal.stage';
const validateParams = compile<{ entry_id: string }>(reversalStageParamsSchema, '/path');
const validateBody = compile<ReversalStageRequestBody>(reversalStageRequestSchema);

export function ledgerReversalRoutes(db: Db, deps: StageDeps): Router {
  const router = Router();
  router.post('/api/v1/cli/ledger/entries/:entry_id/reverse/stage', operation(OPERATION), requireScope(db, 'ledger:stage'), async (req, res) => {
    const params = validateParams({ entry_id: req.params.entry_id });
    // The body is optional: no body is the same as {}.
    const body = validateBody(req.body === undefined ? {} : req.body);
    const errors = [...(params.ok ? [] : params.errors), ...(body.ok ? [] : body.errors)];
    if (!params.ok || !body.ok) throw new AppError('validation_failed', { errors });
    await runStage(deps, res, OPERATION, { entry_id: params.value.entry_id, ...body.value });
  });
  return router;
}
