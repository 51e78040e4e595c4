// The CSV mapping saved on a bank account (docs/guide/statement-import.md "Saved
// CSV mapping"): PUT saves (replaces) it, GET shows it (`csv_mapping: null`
// when none is saved). Both answer 404 for an account that is not the
// caller's organisation's. A CSV import without mapping parameters uses it
// (api/routes/staging.ts).
import { Router, type Response } from 'express';
import type { Db } from 'mongodb';
import { csvMappingProblem, DEFAULT_CSV_MAPPING, type CsvMapping } from '../../shared/kinds/statement-import/csv.js';
import { AppError } from '../../shared/errors.js';
import { bankAccountParamsSchema } from '../../shared/schemas/books-read.js';
import { csvMappingBodySchema, type CsvMappingBody } from '../../shared/kinds/statement-import/schema.js';
import { compile, type Validator } from '../../shared/schemas/validator.js';
import { findAccount } from '../../shared/storage/books-read.js';
import { findCsvMapping, saveCsvMapping, type SavedCsvMapping } from '../../shared/storage/csv-mappings.js';
import { locals } from '../context.js';
import { dataToHttp, send } from '../outcome.js';
import { mountRoute } from './mount.js';

const validParams = compile<{ bank_account_id: string }>(bankAccountParamsSchema, '/path');
const validBody = compile<CsvMappingBody>(csvMappingBodySchema);

function valid<T>(validate: Validator<T>, value: unknown): T {
  const checked = validate(value);
  if (!checked.ok) throw new AppError('validation_failed', { errors: checked.errors });
  return checked.value;
}

/** The request's account id, checked: the caller's organisation's, or 404. */
async function ownAccount(
  db: Db,
  res: Response,
  bank_account_id: string,
): Promise<{ orgId: string; accountId: string }> {
  const orgId = locals(res).auth!.org_id;
  if (!(await findAccount(db, orgId, bank_account_id)))
    throw new AppError('not_found', { details: { resource: 'Bank account', id: bank_account_id } });
  return { orgId, accountId: bank_account_id };
}

const answer = (accountId: string, saved: SavedCsvMapping | null) => ({
  bank_account_id: accountId,
  csv_mapping: saved?.csv_mapping ?? null,
  updated_at: saved?.updated_at ?? null,
  updated_by: saved?.updated_by ?? null,
});

export function csvMappingRoutes(db: Db): Router {
  const router = Router();
  mountRoute(router, db, 'bank_accounts.csv_mapping.put', async (req, res) => {
    // Path, then body, then the account: a request that cannot be valid is refused before any read.
    const params = validParams({ bank_account_id: req.params.bank_account_id });
    const body = validBody(req.body ?? {});
    if (!params.ok || !body.ok)
      throw new AppError('validation_failed', {
        errors: [...(params.ok ? [] : params.errors), ...(body.ok ? [] : body.errors)],
      });
    const mapping: CsvMapping = { ...DEFAULT_CSV_MAPPING, ...body.value };
    const problem = csvMappingProblem(mapping);
    if (problem)
      throw new AppError('validation_failed', { errors: [{ pointer: `/${problem.field}`, message: problem.reason }] });
    const { orgId, accountId } = await ownAccount(db, res, params.value.bank_account_id);
    const saved = await saveCsvMapping(
      db,
      orgId,
      accountId,
      mapping,
      locals(res).auth!.actor,
      new Date().toISOString(),
    );
    send(res, dataToHttp('bank_accounts.csv_mapping.put', locals(res).requestId, answer(accountId, saved)));
  });
  mountRoute(router, db, 'bank_accounts.csv_mapping.show', async (req, res) => {
    const { bank_account_id } = valid(validParams, { bank_account_id: req.params.bank_account_id });
    const { orgId, accountId } = await ownAccount(db, res, bank_account_id);
    send(
      res,
      dataToHttp(
        'bank_accounts.csv_mapping.show',
        locals(res).requestId,
        answer(accountId, await findCsvMapping(db, orgId, accountId)),
      ),
    );
  });
  return router;
}
