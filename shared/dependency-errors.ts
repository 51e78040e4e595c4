// Which backing service an error says is unreachable, if any: such a failure
// is answered 503 dependency_unavailable (retryable), never 500.
import {
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';

export type Dependency = 'Redis' | 'MongoDB';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

export function unreachableDependency(err: unknown): Dependency | null {
  if (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError
  )
    return 'MongoDB';
  if (!(err instanceof Error)) return null;
  // ioredis: a command refused while disconnected, or retried past its limit.
  if (err.name === 'MaxRetriesPerRequestError' || /enableOfflineQueue|Connection is closed/.test(err.message))
    return 'Redis';
  // ioredis' Cluster client while a master fails over: redirections past its limit, no slot map, the cluster down.
  if (
    err.name === 'ClusterAllFailedError' ||
    /Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available|Cluster isn't ready|CLUSTERDOWN|TRYAGAIN/.test(
      err.message,
    )
  )
    return 'Redis';
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'Redis';
  return null;
}

/**
 * How long one Redis command of a request may take. The producer connection
 * fails fast while Redis is down; this bounds a connection still being set up
 * and a Redis that accepts commands but does not answer (a stalled server, a
 * half-open socket), so a request answers 503 in < 2 s (docs/operating/reliability.md).
 */
export const REDIS_DEADLINE_MS = 1500;

/**
 * Whether a failed Redis command certainly never reached Redis: refused
 * while the client was not connected (ioredis' offline-queue refusal), or a
 * connection that could not be opened. Anything else — no answer within the
 * deadline, a connection lost with the command in flight — may have been
 * carried out (docs/operating/reliability.md, "Redis stalls").
 */
export function certainlyNotSent(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (/enableOfflineQueue/.test(err.message)) return true;
  const code = (err as { code?: unknown }).code;
  return code === 'ECONNREFUSED' || code === 'EHOSTUNREACH';
}

/** Reject with a timeout error when `promise` has not settled within `ms` (a connection still being set up). */
export async function within<T>(promise: Promise<T>, ms: number, dependency: Dependency): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          Object.assign(new Error(`${dependency} did not answer within ${ms} ms`), { code: 'ETIMEDOUT', dependency }),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
