import type { RequestHandler, Response } from 'express';
import type { Db } from 'mongodb';
import { AppError } from '../../shared/errors.js';
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import type { TokenIdentity } from '../../shared/storage/api-tokens.js';
import { locals } from '../context.js';
import { tokenLookupFor } from '../token-cache.js';

const BEARER = /^Bearer\s+(\S{1,512})\s*$/i;

async function identify(db: Db, header: string | undefined, res: Response): Promise<TokenIdentity> {
  const match = BEARER.exec(header ?? '');
  const presented = locals(res).presented;
  const identity = !match
    ? null
    : presented !== undefined && presented.secret === match[1]
      ? presented.identity
      : await tokenLookupFor(db)(match[1]!);
  if (!identity) throw new AppError('unauthenticated');
  return identity;
}

/** Bearer token → identity (org, actor, scopes); 401 without a valid token. */
export function requireAuth(db: Db): RequestHandler {
  return async (req, res, next) => {
    locals(res).auth = await identify(db, req.get('authorization'), res);
    next();
  };
}

/** As requireAuth, and 403 without the scope. */
export function requireScope(db: Db, scope: TokenScope): RequestHandler {
  return async (req, res, next) => {
    const identity = await identify(db, req.get('authorization'), res);
    if (!identity.scopes.includes(scope)) throw new AppError('forbidden', { details: { required_scope: scope } });
    locals(res).auth = identity;
    next();
  };
}
