// Headers a staging call understands beyond auth: Idempotency-Key, and
// `Prefer: wait=N` and `Prefer: return=minimal` (RFC 7240).
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

/**
 * `Prefer: return=minimal`: the answer without its operation's plan,
 * preconditions and context (docs/reference/http-api.md §6.4);
 * `return=representation`, or none, is the whole answer.
 */
export function parsePreferMinimal(raw: string | undefined): boolean {
  return raw !== undefined && /(?:^|[,;\s])return\s*=\s*"?minimal"?(?:$|[,;\s])/i.test(raw);
}

/** The Preference-Applied value for what the API honoured, or null for nothing. */
export function preferenceApplied(wait: { ms: number; applied: boolean }, minimal: boolean): string | null {
  const applied = [
    ...(wait.applied ? [`wait=${Math.round(wait.ms / 1000)}`] : []),
    ...(minimal ? ['return=minimal'] : []),
  ];
  return applied.length === 0 ? null : applied.join(', ');
}
