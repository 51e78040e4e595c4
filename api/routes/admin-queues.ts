// bull-board at /admin/queues (docs/reference/http-api.md §12.3): the operator's view of
// the BullMQ queues, read-only. Only a token with the `admin` scope sees it;
// anything else gets the same 404 route_not_found as a path that does not
// exist, so the board's existence is not revealed. The UI's scripts and
// styles come from the @bull-board/ui package, served by this process.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { RequestHandler } from 'express';
import type { Db } from 'mongodb';
import { findTokenBySecret } from '../../shared/storage/api-tokens.js';
import { setRouteTemplate } from '../metrics/http-metrics.js';
import { AppError } from '../../shared/errors.js';

export const ADMIN_QUEUES_PATH = '/admin/queues';
/** A browser cannot send a bearer header by itself: the token may come as this cookie instead. */
export const ADMIN_COOKIE = 'bookstage_admin';

const BEARER = /^Bearer\s+(\S{1,512})\s*$/i;

/**
 * Everything from this origin only: the UI's template links a web font from
 * Google, which the browser then does not fetch (it falls back to a local font).
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'";

function presentedSecret(authorization: string | undefined, cookie: string | undefined): string | null {
  const bearer = BEARER.exec(authorization ?? '');
  if (bearer) return bearer[1]!;
  for (const part of (cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === ADMIN_COOKIE && value.length > 0) return decodeCookie(value.join('='));
  }
  return null;
}

/** A malformed percent-encoding is no token at all: the same 404 as any other non-admin. */
function decodeCookie(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

async function isAdmin(db: Db, secret: string | null): Promise<boolean> {
  if (!secret || secret.length > 512) return false;
  try {
    return (await findTokenBySecret(db, secret))?.scopes.includes('admin') ?? false;
  } catch {
    // MongoDB unreachable: still nothing to see here.
    return false;
  }
}

/** The board behind the admin gate, mounted with app.use(ADMIN_QUEUES_PATH, …). */
export function adminQueues(db: Db, queues: Queue[]): RequestHandler {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: true })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'bookstage queues' } },
  });
  const board = serverAdapter.getRouter() as RequestHandler;
  return async (req, res, next) => {
    if (!(await isAdmin(db, presentedSecret(req.get('authorization'), req.get('cookie'))))) {
      // The same answer as any unknown path, with the full path (not the part below the mount point).
      next(new AppError('route_not_found', { details: { method: req.method, path: req.originalUrl.split('?')[0] } }));
      return;
    }
    setRouteTemplate(res, ADMIN_QUEUES_PATH);
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('Cache-Control', 'no-store');
    board(req, res, next);
  };
}
