// GET /api/v1/cli/events (docs/reference/webhooks.md "The feed"): the organisation's
// events in sequence order, read directly (indexed block reads, nothing
// computed). The cursor carries the sequence read through and the type filter.
import { Router } from 'express';
import type { Db } from 'mongodb';
import { successEnvelope } from '../../shared/contract/envelope.js';
import { AppError } from '../../shared/errors.js';
import {
  EVENTS_DEFAULT_LIMIT,
  EVENTS_NUMERIC_PARAMS,
  eventsQuerySchema,
  type EventsQueryParams,
} from '../../shared/schemas/events.js';
import { compile } from '../../shared/schemas/validator.js';
import { listEvents } from '../../shared/storage/events.js';
import { locals } from '../context.js';
import { openCursor, sealCursor, type CursorBinding } from '../cursor.js';

import { queryObject } from '../query-string.js';
import { mountRoute } from './mount.js';

const validateQuery = compile<EventsQueryParams>(eventsQuerySchema, '/query');

interface EventsCursor {
  sequence: number;
  type: string | null;
}

export function eventRoutes(db: Db, cursorSecret: string | undefined): Router {
  const router = Router();
  mountRoute(router, db, 'events.list', async (req, res) => {
    const query = validateQuery(queryObject(req.query, EVENTS_NUMERIC_PARAMS));
    if (!query.ok) throw new AppError('validation_failed', { errors: query.errors });
    if (!cursorSecret)
      throw new AppError('service_unavailable', { details: { reason: 'cursor_secret_not_configured' } });
    const auth = locals(res).auth!;
    const type = query.value.type ?? null;
    const binding: CursorBinding = { list: 'events', org_id: auth.org_id };
    let after = 0;
    if (query.value.after !== undefined) {
      const opened = openCursor(cursorSecret, binding, query.value.after) as Partial<EventsCursor> | null;
      if (!opened || !Number.isSafeInteger(opened.sequence) || (opened.type ?? null) !== type)
        throw new AppError('invalid_cursor', { details: { parameter: 'after' } });
      after = opened.sequence!;
    }
    const page = await listEvents(db, {
      org_id: auth.org_id,
      after,
      types: type ? [type] : [],
      limit: query.value.limit ?? EVENTS_DEFAULT_LIMIT,
      now: new Date(),
    });
    const next = sealCursor(cursorSecret, binding, { sequence: page.through, type } satisfies EventsCursor);
    res.json(successEnvelope('events.list', locals(res).requestId, { items: page.events, next_cursor: next }));
  });
  return router;
}
