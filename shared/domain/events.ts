// The vocabulary of the event feed (docs/reference/webhooks.md): one event type per
// status a staged operation can reach, and the retry schedule of a webhook
// delivery. Pure: no I/O.
import { STAGED_STATUSES, type StagedStatus } from './staged-transitions.js';

/** What an event records beside the statuses: one more approval that left the status as it was (docs/design/staged-lifecycle.md "Approval policies"). */
export const APPROVAL_ADDED = 'approval_added';
export type EventSubject = StagedStatus | typeof APPROVAL_ADDED;

export const EVENT_TYPES = [...STAGED_STATUSES, APPROVAL_ADDED].map((s) => `staged_operation.${s}` as const);
export type EventType = (typeof EVENT_TYPES)[number];

/** The event type of the transition that reaches `to` (or of an approval added). */
export function eventTypeFor(to: EventSubject): EventType {
  return `staged_operation.${to}`;
}

/**
 * The delay before retry `attempt` (1 = the first retry after the first
 * failed attempt): `baseMs` doubling each time. With the defaults (30 s,
 * 8 attempts) the seven retries span 30 s + 60 s + … + 32 min ≈ 64 min.
 */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return baseMs * 2 ** Math.max(0, attempt - 1);
}

/** Whether an endpoint subscribed to `types` (empty: every type) receives an event of `type`. */
export function subscribes(types: readonly string[], type: string): boolean {
  return types.length === 0 || types.includes(type);
}
