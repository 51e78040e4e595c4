// One HTTP call to the API, retried on what may succeed later: network
// failures, 429/502/503/504 (503 dependency_unavailable and
// service_unavailable among them), and 500 `internal`, which is marked
// retryable (docs/reference/http-api.md §15). Conflicts a person must resolve (409
// pending_operation) and a job that failed for good (500 job_failed, not
// retryable) are answered at once. A staging call keeps its Idempotency-Key
// across these retries, so a retry after a dropped connection replays the
// first answer instead of staging twice, and a retry after a 503 is the same
// request, not a second one (docs/reference/http-api.md §6.2).
import type { Envelope, Warning } from '../../shared/contract/envelope.js';
import type { ErrorBody } from '../../shared/errors.js';
import type { Profile } from './config.js';

export interface Answer {
  status: number;
  headers: Headers;
  /** The body exactly as received (what --json prints). */
  text: string;
  /** The parsed envelope (shared/contract/envelope.ts); null when the body is not JSON. */
  envelope: Envelope | null;
}

// The body is parsed, not validated: these read the envelope's parts and
// tolerate a JSON body that is not an envelope (a proxy's page, say).
const partOf = (
  answer: Pick<Answer, 'envelope'>,
): { data?: unknown; error?: ErrorBody; warnings?: Warning[] } | null =>
  answer.envelope !== null && typeof answer.envelope === 'object' ? answer.envelope : null;

/** An answer's `data`; undefined for an error envelope or a body that is not an envelope. */
export function dataOf(answer: Pick<Answer, 'envelope'>): unknown {
  return partOf(answer)?.data;
}

/** An answer's error; undefined for a success envelope or a body that is not an envelope. */
export function errorOf(answer: Pick<Answer, 'envelope'>): ErrorBody | undefined {
  return partOf(answer)?.error;
}

/** An answer's warnings; undefined for an error envelope or a body that is not an envelope. */
export function warningsOf(answer: Pick<Answer, 'envelope'>): Warning[] | undefined {
  return partOf(answer)?.warnings;
}

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path and query, e.g. `/api/v1/cli/jobs/job_1`. */
  path: string;
  body?: unknown;
  /** A raw body (a statement file), sent as application/octet-stream instead of `body`. */
  rawBody?: Uint8Array;
  idempotencyKey?: string;
  /** Prefer: wait=N. */
  waitSeconds?: number;
  /** Prefer: return=minimal (docs/reference/http-api.md §6.4). */
  minimal?: boolean;
}

export interface RetryPolicy {
  /** Retries after the first try. */
  retries: number;
  /** First back-off; doubled each retry, at most MAX_BACKOFF_MS, or the server's Retry-After. */
  baseDelayMs: number;
  onRetry?: (attempt: number, reason: string, delayMs: number) => void;
}

const MAX_BACKOFF_MS = 8_000;
const MAX_RETRY_AFTER_MS = 30_000;
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const RETRY_CODES = new Set(['internal', 'service_unavailable', 'dependency_unavailable', 'outcome_unknown']);

export class NetworkError extends Error {}

async function sendOnce(profile: Profile, request: Request): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${profile.token}`, accept: 'application/json' };
  let body: string | Uint8Array | undefined;
  if (request.rawBody !== undefined) {
    body = request.rawBody;
    headers['content-type'] = 'application/octet-stream';
  } else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] = 'application/json';
  }
  if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
  const prefer = [
    ...(request.waitSeconds !== undefined ? [`wait=${request.waitSeconds}`] : []),
    ...(request.minimal ? ['return=minimal'] : []),
  ];
  if (prefer.length > 0) headers.prefer = prefer.join(', ');
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${profile.url}${request.path}`, { method: request.method, headers, body });
    text = await res.text();
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new NetworkError(
      `${request.method} ${profile.url}${request.path}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
    );
  }
  let envelope: Envelope | null = null;
  try {
    envelope = JSON.parse(text) as Envelope;
  } catch {
    envelope = null;
  }
  return { status: res.status, headers: res.headers, text, envelope };
}

function retryReason(answer: Answer): string | null {
  if (RETRY_STATUSES.has(answer.status)) return `HTTP ${answer.status}`;
  const error = errorOf(answer);
  if (error && error.retryable && RETRY_CODES.has(error.code)) return error.code;
  return null;
}

function retryAfterMs(answer: Answer): number | null {
  const raw = answer.headers.get('retry-after');
  return raw && /^\d+$/.test(raw) ? Math.min(Number(raw) * 1000, MAX_RETRY_AFTER_MS) : null;
}

/** Send, retrying with back-off; the last answer, or the last network error thrown. */
export async function send(profile: Profile, request: Request, policy: RetryPolicy): Promise<Answer> {
  for (let attempt = 0; ; attempt += 1) {
    let reason: string;
    let answer: Answer | null = null;
    try {
      answer = await sendOnce(profile, request);
      const retry = retryReason(answer);
      if (retry === null) return answer;
      reason = retry;
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
      if (attempt >= policy.retries) throw err;
      reason = err.message;
    }
    if (attempt >= policy.retries) return answer!;
    const delay = (answer && retryAfterMs(answer)) ?? Math.min(policy.baseDelayMs * 2 ** attempt, MAX_BACKOFF_MS);
    policy.onRetry?.(attempt + 1, reason, delay);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
