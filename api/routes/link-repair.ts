import { Router } from 'express';
import type { Db } from 'mongodb';
import { AppError } from '../../shared/errors.js';
import { linkRepairStageRequestSchema, type LinkRepairStageRequestBody } from '../../shared/schemas/link-repair-stage.js';
import { compile } from '../../shared/schemas/validator.js';
import { requireScope } from '../middleware/auth.js';
import { operation } from '../middleware/request-id.js';
import { runStage, type StageDeps } from '../stage-handler.js';

const OPERATION = 'ledger_link_repair.stage';
const validateBody = compile<LinkRepairStageRequestBody>(linkRepairStageRequestSchema);

export function linkRepairRoutes(db: Db, deps: StageDeps): Router {
  const router = Router();
  router.post('/api/v1/cli/bank-matches/ledger-link-repair/stage', operation(OPERATION), requireScope(db, 'bank:stage'), async (req, res) => {
    // No body is validated as {}: every missing required field is reported.
    const body = validateBody(req.body === undefined ? {} : req.body);
    if (!body.ok) throw new AppError('validation_failed', { errors: body.errors });
    await runStage(deps, res, OPERATION, { ...body.value });
  });
  return router;
}
