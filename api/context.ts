import type { Response } from 'express';
import type { TokenIdentity } from '../shared/storage/api-tokens.js';

/** Per-request values the middleware chain sets and handlers read. */
export interface Locals {
  requestId: string;
  operation: string | null;
  auth?: TokenIdentity;
  /** The bearer token the rate limit already looked up, and what it found: authentication reuses it (no second read). */
  presented?: { secret: string; identity: TokenIdentity | null };
}

export const locals = (res: Response): Locals => res.locals as Locals;
