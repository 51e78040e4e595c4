// The five staging endpoints, one per kind (bank_reconcile, ledger_link_repair,
// ledger_reversal, statement_import, inbox_duplicates_resolve;
// docs/reference/http-api.md): each is scope → schema →
// runStage. Path and scope come from the route table (shared/contract/routes.ts);
// what differs here is only how the validated request becomes the job's input.
import { Router, type Request } from 'express';
import type { Db } from 'mongodb';
import { AppError, type FieldError } from '../../shared/errors.js';
import type { StageJobInputs, StageOperation } from '../../shared/queue/stage-jobs.js';
import {
  linkRepairStageRequestSchema,
  type LinkRepairStageRequestBody,
} from '../../shared/schemas/link-repair-stage.js';
import { reconcileStageRequestSchema, type ReconcileStageRequestBody } from '../../shared/schemas/reconcile-stage.js';
import {
  reversalStageParamsSchema,
  reversalStageRequestSchema,
  type ReversalStageParams,
  type ReversalStageRequestBody,
} from '../../shared/schemas/reversal-stage.js';
import {
  inboxResolveStageParamsSchema,
  inboxResolveStageRequestSchema,
  type InboxResolveStageParams,
  type InboxResolveStageRequestBody,
} from '../../shared/schemas/inbox-resolve-stage.js';
import {
  statementImportParamsSchema,
  statementImportQuerySchema,
  type StatementImportQuery,
  type StatementImportStageInput,
} from '../../shared/schemas/statement-import-stage.js';
import { DEFAULT_CSV_MAPPING, type CsvMapping } from '../../shared/domain/statement-import/csv.js';
import { compile, type Validation } from '../../shared/schemas/validator.js';
import { findCsvMapping } from '../../shared/storage/csv-mappings.js';
import { DRY_RUN_UPLOAD_KEEP_MS, saveStatementUpload, UPLOAD_KEEP_MS } from '../../shared/storage/statement-uploads.js';
import { locals } from '../context.js';
import { readStatementBody } from '../middleware/statement-body.js';
import { queryObject } from '../query-string.js';

import { runStage, type StageDeps } from '../stage-handler.js';
import { mountRoute } from './mount.js';

interface StagingRoute<Op extends StageOperation> {
  operation: Op;
  /** The job's input from the request, or every problem with a JSON pointer. */
  input(req: Request): Validation<StageJobInputs[Op]>;
}

// No body is validated as {}: a required field is then reported missing, an optional body is simply empty.
const bodyOf = (req: Request): unknown => req.body ?? {};

const validateReversalParams = compile<ReversalStageParams>(reversalStageParamsSchema, '/path');
const validateReversalBody = compile<ReversalStageRequestBody>(reversalStageRequestSchema);
const validateRepairBody = compile<LinkRepairStageRequestBody>(linkRepairStageRequestSchema);
const validateReconcileBody = compile<ReconcileStageRequestBody>(reconcileStageRequestSchema);

const reversal: StagingRoute<'ledger_reversal.stage'> = {
  operation: 'ledger_reversal.stage',
  input: (req) => {
    const params = validateReversalParams({ entry_id: req.params.entry_id });
    const body = validateReversalBody(bodyOf(req));
    if (params.ok && body.ok) return { ok: true, value: { entry_id: params.value.entry_id, ...body.value } };
    const errors: FieldError[] = [...(params.ok ? [] : params.errors), ...(body.ok ? [] : body.errors)];
    return { ok: false, errors };
  },
};

const repair: StagingRoute<'ledger_link_repair.stage'> = {
  operation: 'ledger_link_repair.stage',
  input: (req) => validateRepairBody(bodyOf(req)),
};

const reconcile: StagingRoute<'bank_reconcile.stage'> = {
  operation: 'bank_reconcile.stage',
  input: (req) => validateReconcileBody(bodyOf(req)),
};

const validateResolveParams = compile<InboxResolveStageParams>(inboxResolveStageParamsSchema, '/path');
const validateResolveBody = compile<InboxResolveStageRequestBody>(inboxResolveStageRequestSchema);

const inboxResolve: StagingRoute<'inbox_duplicates_resolve.stage'> = {
  operation: 'inbox_duplicates_resolve.stage',
  input: (req) => {
    const params = validateResolveParams({ group_id: req.params.group_id });
    const body = validateResolveBody(bodyOf(req));
    if (params.ok && body.ok) return { ok: true, value: { group_id: params.value.group_id, ...body.value } };
    const errors: FieldError[] = [...(params.ok ? [] : params.errors), ...(body.ok ? [] : body.errors)];
    return { ok: false, errors };
  },
};

function mount<Op extends StageOperation>(router: Router, db: Db, deps: StageDeps, route: StagingRoute<Op>): void {
  mountRoute(router, db, route.operation, async (req, res) => {
    const input = route.input(req);
    if (!input.ok) throw new AppError('validation_failed', { errors: input.errors });
    await runStage(deps, res, route.operation, input.value);
  });
}

const validateImportParams = compile<{ bank_account_id: string }>(statementImportParamsSchema, '/path');
const validateImportQuery = compile<StatementImportQuery>(statementImportQuerySchema, '/query');

/** The CSV mapping a query gives (defaults filled in), or null when it names none. */
function csvMappingOf(query: StatementImportQuery): CsvMapping | null {
  if (query.date_column === undefined) return null;
  const { format: _format, encoding: _encoding, dry_run: _dryRun, header, ...mapping } = query;
  return {
    ...DEFAULT_CSV_MAPPING,
    ...mapping,
    date_column: query.date_column,
    header: header === undefined ? DEFAULT_CSV_MAPPING.header : header === 'true',
  };
}

/**
 * A statement import (docs/guide/statement-import.md): path and query are checked
 * first, then the raw body is read (its own limit), then the shared staging
 * path. The file is stored for the job (shared/storage/statement-uploads.ts),
 * which carries its id; the operation stores none of it.
 */
function mountStatementImport(router: Router, db: Db, deps: StageDeps): void {
  mountRoute(router, db, 'statement_import.stage', async (req, res) => {
    const params = validateImportParams({ bank_account_id: req.params.bank_account_id });
    const query = validateImportQuery(queryObject(req.query, ['skip_rows']));
    if (!params.ok || !query.ok) {
      throw new AppError('validation_failed', {
        errors: [...(params.ok ? [] : params.errors), ...(query.ok ? [] : query.errors)],
      });
    }
    const format = query.value.format ?? 'auto';
    const body = await readStatementBody(req, res);
    if (body.length === 0)
      throw new AppError('unreadable_statement', {
        details: { format, location: 'body', reason: 'the request body is empty: send the statement file as the body' },
      });
    // Mapping parameters win whole; without any, a CSV (or a file sniffed as one) uses the account's saved mapping, if any.
    let csv = csvMappingOf(query.value);
    if (csv === null && (format === 'csv' || format === 'auto')) {
      csv = (await findCsvMapping(db, locals(res).auth!.org_id, params.value.bank_account_id))?.csv_mapping ?? null;
    }
    // The file waits in the store, not in the job (docs/operating/reliability.md "What Redis holds").
    const dryRun = query.value.dry_run === 'true';
    const file = await saveStatementUpload(
      db,
      locals(res).auth!.org_id,
      body,
      dryRun ? DRY_RUN_UPLOAD_KEEP_MS : UPLOAD_KEEP_MS,
    );
    const input: StatementImportStageInput = {
      bank_account_id: params.value.bank_account_id,
      format,
      encoding: query.value.encoding ?? null,
      csv,
      file,
    };
    await runStage(deps, res, 'statement_import.stage', input);
  });
}

export function stagingRoutes(db: Db, deps: StageDeps): Router {
  const router = Router();
  mount(router, db, deps, reversal);
  mount(router, db, deps, repair);
  mount(router, db, deps, reconcile);
  mount(router, db, deps, inboxResolve);
  mountStatementImport(router, db, deps);
  return router;
}
