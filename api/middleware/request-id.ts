import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { locals } from '../context.js';

const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reuse a well-formed incoming X-Request-Id, else make one; echo it on every response. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming && WELL_FORMED.test(incoming) ? incoming : randomUUID();
  const l = locals(res);
  l.requestId = id;
  l.operation = null;
  (req as { id?: string }).id = id;
  res.setHeader('X-Request-Id', id);
  next();
};

/** Names the operation for the envelope, including error envelopes from auth and validation. */
export const operation =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    locals(res).operation = name;
    next();
  };
