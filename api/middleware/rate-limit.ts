// Per-token rate limit (docs/reference/http-api.md §5): a fixed window of
// RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_S for each bearer token, counted
// in Redis so every API replica shares the count. Mounted on /api only:
// /healthz, /readyz and /metrics are never limited. Requests without a token
// are not counted (they answer 401 without work).
//
// Only tokens that exist are counted in Redis: the token is looked up here
// (authentication then reuses the answer), so a made-up token costs no Redis
// key. A made-up token still costs a store read, so unknown tokens are
// limited per client address before the read: RATE_LIMIT_AUTH_FAILURES per
// window and API process; past it the address is answered 429 without a
// read, except for tokens this process has cached as valid.
import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Cluster, Redis } from 'ioredis';
import type { Db } from 'mongodb';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { within } from '../../shared/dependency-errors.js';
import { AppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { locals } from '../context.js';
import { peekToken, tokenLookupFor } from '../token-cache.js';

export interface RateLimitSettings {
  requests: number;
  windowSeconds: number;
  keyPrefix: string;
  /** Unknown tokens one client address may present per window (RATE_LIMIT_AUTH_FAILURES). */
  authFailures: number;
}

/**
 * How long the count may take. A Redis that accepts the connection but never
 * answers (a half-open socket) must not hold the request: past this the request
 * goes on uncounted, and whatever needs Redis answers 503 by its own deadline.
 */
const COUNT_DEADLINE_MS = 500;

const BEARER = /^Bearer\s+(\S{1,512})\s*$/i;

/** The count's key: a hash of the presented secret, so Redis holds neither the secret nor the hash tokens are stored under. */
const tokenKey = (secret: string): string =>
  createHash('sha256').update(`bookstage rate limit\n${secret}`, 'utf8').digest('base64url').slice(0, 32);

/** The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), on every counted answer. */
function setHeaders(res: Response, settings: RateLimitSettings, state: RateLimiterRes): void {
  res.setHeader('RateLimit-Limit', String(settings.requests));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, state.remainingPoints)));
  res.setHeader('RateLimit-Reset', String(Math.ceil(state.msBeforeNext / 1000)));
  res.setHeader('RateLimit-Policy', `${settings.requests};w=${settings.windowSeconds}`);
}

function refuse(res: Response, settings: RateLimitSettings, limit: number, msBeforeNext: number): AppError {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  res.setHeader('Retry-After', String(retryAfter));
  return new AppError('rate_limited', {
    details: { limit, window_seconds: settings.windowSeconds, retry_after_seconds: retryAfter },
  });
}

export function rateLimit(redis: Redis | Cluster, settings: RateLimitSettings, logger: Logger, db: Db): RequestHandler {
  // In memory: it guards this process's store reads, and costs no Redis round trip on a request with a valid token.
  const unknownTokens = new RateLimiterMemory({
    keyPrefix: 'unknown-token',
    points: settings.authFailures,
    duration: settings.windowSeconds,
  });
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: settings.keyPrefix,
    points: settings.requests,
    duration: settings.windowSeconds,
    // While Redis is down, fail at once instead of waiting for the connection.
    rejectIfRedisNotReady: true,
  });
  return async (req, res, next) => {
    const match = BEARER.exec(req.get('authorization') ?? '');
    if (!match) {
      next();
      return;
    }
    const secret = match[1]!;
    if (!peekToken(db, secret)) {
      const address = req.socket.remoteAddress ?? 'unknown';
      const failures = await unknownTokens.get(address);
      if (failures && failures.consumedPoints >= settings.authFailures) {
        throw refuse(res, settings, settings.authFailures, failures.msBeforeNext);
      }
      const identity = await tokenLookupFor(db)(secret);
      locals(res).presented = { secret, identity };
      if (!identity) {
        // Counted against the address, not as a token: authentication answers 401.
        await unknownTokens.consume(address).catch(() => undefined);
        next();
        return;
      }
    }
    let state: RateLimiterRes;
    try {
      state = await within(limiter.consume(tokenKey(secret)), COUNT_DEADLINE_MS, 'Redis');
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        // Redis is unreachable or too slow: the limit is a guard, not a dependency. Reads from MongoDB go on;
        // anything that needs Redis answers 503 on its own.
        logger.debug({ err: rejection }, 'rate limit not checked: Redis unavailable');
        next();
        return;
      }
      setHeaders(res, settings, rejection);
      throw refuse(res, settings, settings.requests, rejection.msBeforeNext);
    }
    setHeaders(res, settings, state);
    next();
  };
}
