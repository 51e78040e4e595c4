// GET /api/v1/cli/bookkeeping/inbox/duplicates (docs/reference/http-api.md §10, §13.4): the
// duplicate groups of the caller's inbox, one page at a time. A page of the
// overview already stored for the current inbox version is read here; only
// when there is none does the worker load and group (a read job, see
// docs/design/duplicate-overview.md for why). The API validates, turns the
// cursor into a position and back, and answers.
import { Router } from 'express';
import type { Db } from 'mongodb';
import type { GroupPosition } from '../../shared/domain/duplicate-groups.js';
import { AppError } from '../../shared/errors.js';
import {
  DUPLICATES_DEFAULT_LIMIT,
  INBOX_DUPLICATES_NUMERIC_PARAMS,
  inboxDuplicatesQuerySchema,
  type InboxDuplicatesQuery,
} from '../../shared/schemas/inbox-duplicates.js';
import { compile } from '../../shared/schemas/validator.js';
import { readStoredDuplicatePage, StoredOverviewCache } from '../../shared/storage/duplicate-overview.js';
import { locals } from '../context.js';
import { openCursor, sealCursor, type CursorBinding } from '../cursor.js';

import { dataToHttp, send } from '../outcome.js';
import { queryObject } from '../query-string.js';
import { runRead, type ReadDeps } from '../read-handler.js';
import { mountRoute } from './mount.js';

const OPERATION = 'inbox_duplicates.list';
const CURSOR_LIST = 'inbox_duplicates';
const validateQuery = compile<InboxDuplicatesQuery>(inboxDuplicatesQuerySchema, '/query');
/** Characters of stored overview JSON (indexes and chunks) the API keeps in memory: a few hundred 50-group chunks. */
const STORED_OVERVIEW_CACHE_CHARS = 16_000_000;

/** What a cursor carries: where the next page starts, and the filter it was issued for. */
interface DuplicatesCursor {
  after: GroupPosition;
  min_confidence: number | null;
}

/** `reads` is absent only in apps built without a queue (tests of the HTTP layer); the route then answers 503. */
export function inboxDuplicatesRoutes(db: Db, reads: ReadDeps | undefined): Router {
  const router = Router();
  const stored = new StoredOverviewCache(STORED_OVERVIEW_CACHE_CHARS);
  mountRoute(router, db, OPERATION, async (req, res) => {
    const query = validateQuery(queryObject(req.query, INBOX_DUPLICATES_NUMERIC_PARAMS));
    if (!query.ok) throw new AppError('validation_failed', { errors: query.errors });
    if (!reads) throw new AppError('service_unavailable', { details: { reason: 'read_queue_not_configured' } });
    const auth = locals(res).auth!;
    const binding: CursorBinding = { list: CURSOR_LIST, org_id: auth.org_id };
    const minConfidence = query.value.min_confidence ?? null;
    const after =
      query.value.cursor === undefined
        ? null
        : positionOf(openCursor(reads.cursorSecret, binding, query.value.cursor), minConfidence);

    const input = { limit: query.value.limit ?? DUPLICATES_DEFAULT_LIMIT, min_confidence: minConfidence, after };
    // The stored page of the current version when there is one; the worker computes (or waits for) it otherwise.
    const page =
      (await readStoredDuplicatePage(db, auth.org_id, input, stored)) ?? (await runRead(reads, res, OPERATION, input));
    const next: DuplicatesCursor | null = page.next_after && { after: page.next_after, min_confidence: minConfidence };
    send(
      res,
      dataToHttp(OPERATION, locals(res).requestId, {
        groups: page.groups,
        next_cursor: next && sealCursor(reads.cursorSecret, binding, next),
      }),
    );
  });
  return router;
}

/** The position of a cursor this service issued to this organisation for the same min_confidence; else 400 invalid_cursor. */
function positionOf(opened: unknown, minConfidence: number | null): GroupPosition {
  const cursor = opened as Partial<DuplicatesCursor> | null;
  const after = cursor?.after;
  if (
    !cursor ||
    cursor.min_confidence !== minConfidence ||
    !after ||
    typeof after.newest_received_at !== 'string' ||
    typeof after.group_id !== 'string'
  ) {
    throw new AppError('invalid_cursor', { details: { parameter: 'cursor' } });
  }
  return { newest_received_at: after.newest_received_at, group_id: after.group_id };
}
