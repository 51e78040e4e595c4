// The closed periods (docs/design/staged-lifecycle.md "Closed periods"): the
// list is a plain indexed read served here, keyset-paged by `through` with the
// opaque cursors of api/cursor.ts; one period's check reads the whole period,
// so it is a read job of the worker (worker/jobs/periods-show.ts).
import { Router, type Response } from 'express';
import type { Db } from 'mongodb';
import { AppError } from '../../shared/errors.js';
import { BOOKS_DEFAULT_LIMIT, BOOKS_NUMERIC_PARAMS } from '../../shared/schemas/books-read.js';
import {
  periodParamsSchema,
  periodsQuerySchema,
  type PeriodParams,
  type PeriodsQuery,
} from '../../shared/schemas/periods.js';
import { compile, type Validator } from '../../shared/schemas/validator.js';
import { closedPeriodsPage, findClosedPeriod } from '../../shared/storage/closed-periods.js';
import { locals } from '../context.js';
import { openCursor, sealCursor, type CursorBinding } from '../cursor.js';
import { dataToHttp, send } from '../outcome.js';
import { queryObject } from '../query-string.js';
import { runRead, type ReadDeps } from '../read-handler.js';
import { mountRoute } from './mount.js';

const validQuery = compile<PeriodsQuery>(periodsQuerySchema, '/query');
const validParams = compile<PeriodParams>(periodParamsSchema, '/path');

function valid<T>(validate: Validator<T>, value: unknown): T {
  const checked = validate(value);
  if (!checked.ok) throw new AppError('validation_failed', { errors: checked.errors });
  return checked.value;
}

const orgOf = (res: Response): string => locals(res).auth!.org_id;

export function periodRoutes(db: Db, reads?: ReadDeps): Router {
  const router = Router();
  const secret = (): string => {
    if (reads?.cursorSecret === undefined)
      throw new AppError('service_unavailable', { details: { reason: 'cursor_secret_not_configured' } });
    return reads.cursorSecret;
  };

  mountRoute(router, db, 'periods.list', async (req, res) => {
    const query = valid(validQuery, queryObject(req.query, BOOKS_NUMERIC_PARAMS));
    const scope: CursorBinding = { list: 'closed_periods', org_id: orgOf(res) };
    let after: string | null = null;
    if (query.cursor !== undefined) {
      // A period's `through` is unique in its organisation: it alone is the position.
      const opened = openCursor(secret(), scope, query.cursor) as { after?: unknown } | null;
      if (typeof opened?.after !== 'string') throw new AppError('invalid_cursor', { details: { parameter: 'cursor' } });
      after = opened.after;
    }
    const limit = query.limit ?? BOOKS_DEFAULT_LIMIT;
    const rows = await closedPeriodsPage(db, orgOf(res), after, limit + 1);
    const items = rows.slice(0, limit);
    const next = rows.length > limit ? sealCursor(secret(), scope, { after: items[items.length - 1]!.through }) : null;
    send(res, dataToHttp('periods.list', locals(res).requestId, { items, next_cursor: next }));
  });

  mountRoute(router, db, 'periods.show', async (req, res) => {
    const { through } = valid(validParams, { through: req.params.through });
    const orgId = orgOf(res);
    if (!(await findClosedPeriod(db, orgId, through)))
      throw new AppError('not_found', { details: { resource: 'Closed period', id: through } });
    if (!reads) throw new AppError('service_unavailable', { details: { reason: 'read_queue_not_configured' } });
    const checked = await runRead(reads, res, 'periods.show', { through });
    if (!checked) throw new AppError('not_found', { details: { resource: 'Closed period', id: through } });
    send(res, dataToHttp('periods.show', locals(res).requestId, checked));
  });
  return router;
}
