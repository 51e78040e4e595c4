import express, { type RequestHandler } from 'express';
import { AppError } from '../../shared/errors.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] });

function hasBody(headers: Record<string, unknown>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** JSON bodies only: a body of another type is 415, never silently ignored. */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (hasBody(req.headers) && !req.is(['application/json', 'application/*+json'])) {
    next(new AppError('unsupported_media_type', { details: { content_type: req.get('content-type') ?? null } }));
    return;
  }
  parseJson(req, res, next);
};

/** body-parser's failures, as AppErrors with stable codes. */
export function bodyParserError(err: unknown): AppError | null {
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') return new AppError('malformed_json', { details: { reason: (err as Error).message } });
  if (type === 'entity.too.large') return new AppError('payload_too_large', { details: { limit_bytes: BODY_LIMIT_BYTES } });
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new AppError('unsupported_media_type', { details: { reason: (err as Error).message } });
  if (type === 'request.aborted') return new AppError('malformed_json', { details: { reason: 'request aborted' } });
  return null;
}
