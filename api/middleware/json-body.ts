import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { AppError } from '../../shared/errors.js';
import { repeatedMemberPointer } from '../repeated-json-members.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The statement import's path (after /api): its body is the raw file, read by statement-body.ts with its own limit. */
export const STATEMENT_BODY_PATH = /^\/v1\/cli\/bank-accounts\/[^/]+\/statements\/import\/stage\/?$/;

const JSON_TYPES = ['application/json', 'application/*+json'];

/** The raw text of a JSON body, kept by the parser's verify hook for the duplicate-key check. */
const rawText = new WeakMap<IncomingMessage, string>();

// The limit counts decoded bytes: a gzip or deflate body (Content-Encoding)
// is accepted, and a small body that inflates past 1 MB is 413 like any other.
const parseJson = express.json({
  limit: BODY_LIMIT_BYTES,
  type: JSON_TYPES,
  verify: (req, _res, buf) => {
    rawText.set(req, buf.toString('utf8'));
  },
});

function hasBody(headers: Record<string, unknown>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** UTF-8 only (docs/reference/http-api.md §5): the parser would otherwise decode UTF-16 and others. */
function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match ? match[1]!.toLowerCase() : null;
}

/** JSON bodies only: a body of another type or charset is 415, never silently ignored; repeated keys are 400. */
export const jsonBody: RequestHandler = (req, res, next) => {
  // A statement import's body is the raw file (statement-body.ts).
  if (STATEMENT_BODY_PATH.test(req.path)) {
    next();
    return;
  }
  if (hasBody(req.headers) && !req.is(JSON_TYPES)) {
    next(new AppError('unsupported_media_type', { details: { content_type: req.get('content-type') ?? null } }));
    return;
  }
  const charset = charsetOf(req.get('content-type'));
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
    next(new AppError('unsupported_media_type', { details: { content_type: req.get('content-type') ?? null } }));
    return;
  }
  parseJson(req, res, (err?: unknown) => {
    if (err) {
      next(err);
      return;
    }
    const text = rawText.get(req);
    const pointer = text === undefined ? null : repeatedMemberPointer(text);
    if (pointer !== null) {
      next(
        new AppError('malformed_json', {
          message: `The request body repeats the key at ${pointer}; each key may appear once.`,
          details: { reason: 'duplicate_key', pointer },
        }),
      );
      return;
    }
    next();
  });
};

/**
 * A decompression failure as body-parser passes it on: zlib's own error
 * (code Z_DATA_ERROR, Z_BUF_ERROR for a truncated stream, or a Brotli
 * ERR__ERROR_* code) with status 400 and no body-parser type.
 */
function isDecodeError(err: unknown): boolean {
  const { code, status, type } = err as { code?: unknown; status?: unknown; type?: unknown };
  return (
    status === 400 &&
    type === undefined &&
    typeof code === 'string' &&
    (code.startsWith('Z_') || code.startsWith('ERR__ERROR'))
  );
}

/** body-parser's failures, as AppErrors with stable codes; `encoding` is the request's Content-Encoding. */
export function bodyParserError(err: unknown, encoding?: string): AppError | null {
  if (isDecodeError(err))
    return new AppError('malformed_body_encoding', { details: { encoding: encoding?.toLowerCase() ?? null } });
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed')
    return new AppError('malformed_json', { details: { reason: (err as Error).message } });
  if (type === 'entity.too.large')
    return new AppError('payload_too_large', { details: { limit_bytes: BODY_LIMIT_BYTES } });
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return new AppError('unsupported_media_type', { details: { reason: (err as Error).message } });
  if (type === 'request.aborted') return new AppError('malformed_json', { details: { reason: 'request aborted' } });
  return null;
}
