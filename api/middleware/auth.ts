import type { RequestHandler } from 'express';
import type { Db } from 'mongodb';
import { AppError } from '../../shared/errors.js';
import { findTokenBySecret, type Scope } from '../../shared/storage/api-tokens.js';
import { locals } from '../context.js';

const BEARER = /^Bearer\s+(\S{1,512})\s*$/i;

/** Bearer token → identity (org, actor, scopes); 401 without a valid token, 403 without the scope. */
export function requireScope(db: Db, scope: Scope): RequestHandler {
  return async (req, res, next) => {
    const match = BEARER.exec(req.get('authorization') ?? '');
    const identity = match ? await findTokenBySecret(db, match[1]!) : null;
    if (!identity) throw new AppError('unauthenticated');
    if (!identity.scopes.includes(scope)) throw new AppError('forbidden', { details: { required_scope: scope } });
    locals(res).auth = identity;
    next();
  };
}
