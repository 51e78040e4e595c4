// The raw body of a statement import (docs/guide/statement-import.md "Endpoint"):
// any content type, up to STATEMENT_BODY_LIMIT_BYTES, read only after the
// token and scope were checked. Every other /api route keeps the JSON body
// parser and its 1 MB limit (json-body.ts), which skips this one path.
import express, { type Request, type Response } from 'express';
import { AppError } from '../../shared/errors.js';
import { STATEMENT_BODY_LIMIT_BYTES } from '../../shared/kinds/statement-import/schema.js';
import { bodyParserError } from './json-body.js';

const parseRaw = express.raw({ limit: STATEMENT_BODY_LIMIT_BYTES, type: () => true });

/** The request's body as bytes (empty when none was sent). */
export function readStatementBody(req: Request, res: Response): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    parseRaw(req, res, (err?: unknown) => {
      if (err) {
        const type = (err as { type?: string }).type;
        if (type === 'entity.too.large') {
          reject(new AppError('payload_too_large', { details: { limit_bytes: STATEMENT_BODY_LIMIT_BYTES } }));
          return;
        }
        const known = bodyParserError(err, req.get('content-encoding'));
        reject(known ?? (err instanceof Error ? err : new Error('the request body could not be read')));
        return;
      }
      resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    });
  });
}
