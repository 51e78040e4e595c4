// Headers a staging call understands beyond auth: Idempotency-Key and
// `Prefer: wait=N` (RFC 7240).
import { AppError } from '../shared/errors.js';

const PRINTABLE = /^[\x20-\x7E]{1,255}$/;

export function parseIdempotencyKey(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!PRINTABLE.test(raw)) {
    throw new AppError('validation_failed', {
      errors: [{ pointer: '/headers/idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  return raw;
}

/** `Prefer: wait=N` in seconds, capped at the configured maximum; otherwise the default wait. */
export function parsePreferWait(
  raw: string | undefined,
  defaultMs: number,
  maxMs: number,
): { ms: number; applied: boolean } {
  const match = raw ? /(?:^|[,;\s])wait\s*=\s*"?(\d{1,7})"?/i.exec(raw) : null;
  if (!match) return { ms: defaultMs, applied: false };
  return { ms: Math.min(Number(match[1]) * 1000, maxMs), applied: true };
}
