// The staging endpoints (docs/reference/http-api.md), one per staged kind
// (shared/kinds/registry.ts): each is scope → schema → runStage. Path, scope and
// schemas come from the kind's route entry; a JSON call's input is its path
// parameters and its body, a statement import's (the one raw-body call) its
// path, query and file.
import { Router, type Request } from 'express';
import type { Db } from 'mongodb';
import { AppError, type FieldError } from '../../shared/errors.js';
import type { RouteContract } from '../../shared/contract/routes.js';
import { KINDS, STAGED_KINDS } from '../../shared/kinds/registry.js';
import type { StageJobInputs, StageOperation } from '../../shared/queue/stage-jobs.js';
import {
  statementImportParamsSchema,
  statementImportQuerySchema,
  type StatementImportQuery,
  type StatementImportStageInput,
} from '../../shared/kinds/statement-import/schema.js';
import { DEFAULT_CSV_MAPPING, type CsvMapping } from '../../shared/kinds/statement-import/csv.js';
import { compile, type Validation } from '../../shared/schemas/validator.js';
import { findCsvMapping } from '../../shared/storage/csv-mappings.js';
import { DRY_RUN_UPLOAD_KEEP_MS, saveStatementUpload, UPLOAD_KEEP_MS } from '../../shared/storage/statement-uploads.js';
import { locals } from '../context.js';
import { readStatementBody } from '../middleware/statement-body.js';
import { queryObject } from '../query-string.js';

import { runStage, type StageDeps } from '../stage-handler.js';
import { mountRoute } from './mount.js';

// No body is validated as {}: a required field is then reported missing, an optional body is simply empty.
const bodyOf = (req: Request): unknown => req.body ?? {};

/** A JSON staging call's input from its request: its path parameters (if any), then its body, or every problem with a JSON pointer. */
function jsonInput(route: RouteContract): (req: Request) => Validation<Record<string, unknown>> {
  const names = Object.keys(route.pathParams?.schema.properties ?? {});
  const validateParams = route.pathParams ? compile<Record<string, unknown>>(route.pathParams.schema, '/path') : null;
  const validateBody = compile<Record<string, unknown>>(route.body?.schema ?? {});
  return (req) => {
    const body = validateBody(bodyOf(req));
    if (!validateParams) return body;
    const params = validateParams(Object.fromEntries(names.map((name) => [name, req.params[name]])));
    if (params.ok && body.ok) return { ok: true, value: { ...params.value, ...body.value } };
    const errors: FieldError[] = [...(params.ok ? [] : params.errors), ...(body.ok ? [] : body.errors)];
    return { ok: false, errors };
  };
}

function mountJson(router: Router, db: Db, deps: StageDeps, route: RouteContract): void {
  const operation = route.operation as StageOperation;
  const input = jsonInput(route);
  mountRoute(router, db, operation, async (req, res) => {
    const refusal = route.bodyRefusal?.(bodyOf(req));
    if (refusal) throw new AppError(refusal.code, { details: refusal.details });
    const checked = input(req);
    if (!checked.ok) throw new AppError('validation_failed', { errors: checked.errors });
    // The route's schemas are the job input's own (shared/kinds/registry.ts KindInputs).
    await runStage(deps, res, operation, checked.value as StageJobInputs[typeof operation]);
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
function mountStatementImport(router: Router, db: Db, deps: StageDeps, operation: StageOperation): void {
  mountRoute(router, db, operation, async (req, res) => {
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
    await runStage(deps, res, operation, input as StageJobInputs[typeof operation]);
  });
}

export function stagingRoutes(db: Db, deps: StageDeps): Router {
  const router = Router();
  for (const kind of STAGED_KINDS) {
    const route = KINDS[kind].route;
    if (route.rawBody) mountStatementImport(router, db, deps, route.operation);
    else mountJson(router, db, deps, route);
  }
  return router;
}
