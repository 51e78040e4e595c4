import type { ErrorRequestHandler, RequestHandler } from 'express';
import { unreachableDependency } from '../../shared/dependency-errors.js';
import { AppError } from '../../shared/errors.js';
import { locals } from '../context.js';
import { errorToHttp, send } from '../outcome.js';
import { bodyParserError } from './json-body.js';

/**
 * The router decodes path parameters before any route handler (auth
 * included) runs; a malformed percent-encoding (`%`, `%zz`) throws a
 * URIError with status 400. A client's mistake, not ours: 400
 * malformed_path, not logged as an error (docs/reference/http-api.md §5).
 */
function malformedPath(err: unknown): AppError | null {
  if (!(err instanceof URIError) || (err as { status?: unknown }).status !== 400) return null;
  return new AppError('malformed_path', { details: { reason: 'malformed_percent_encoding' } });
}

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(new AppError('route_not_found', { details: { method: req.method, path: req.path } }));
};

/** The one place an error becomes an HTTP answer. Unexpected errors are logged and answered 500 without internals. */
export const errorToEnvelope: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  const dependency = unreachableDependency(err);
  const appError =
    err instanceof AppError
      ? err
      : dependency
        ? new AppError('dependency_unavailable', { details: { dependency } })
        : (bodyParserError(err, req.get('content-encoding')) ?? malformedPath(err));
  const l = locals(res);
  const finalError = appError ?? new AppError('internal');
  if (!appError)
    (req as { log?: { error: (o: object, m: string) => void } }).log?.error(
      { err, request_id: l.requestId },
      'unexpected error',
    );
  if (res.headersSent) return;
  send(res, errorToHttp(l.operation ?? null, l.requestId, finalError));
};
