// Delivering one endpoint's events (docs/reference/webhooks.md "Delivery"): in
// sequence order, one at a time; the first that fails stops the drain and is
// retried after its back-off, and nothing after it goes before it does (or
// is given up after WEBHOOK_MAX_ATTEMPTS). Progress is stored on the
// endpoint after each attempt, so a worker that dies mid-drain sends at most
// the event it was sending again (at least once; receivers dedupe by id).
import type { Db } from 'mongodb';
import { retryDelayMs } from '../../shared/domain/events.js';
import type { Logger } from '../../shared/logger.js';
import type { WebhookEndpointDoc } from '../../shared/storage/collections.js';
import type { StoredEvent } from '../../shared/storage/collections.js';
import { listEvents } from '../../shared/storage/events.js';
import { findEndpointById, recordDelivery, saveProgress } from '../../shared/storage/webhook-endpoints.js';
import { decryptSecret } from '../../shared/webhook-secret.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../../shared/webhook-signature.js';
import { sendEvent, type SendSettings } from './send.js';

export interface DrainSettings extends SendSettings {
  maxAttempts: number;
  backoffMs: number;
  secretKey: string;
}

export type DeliveryOutcome = 'delivered' | 'failed' | 'given_up';

const PAGE = 50;

export async function drainEndpoint(
  db: Db,
  endpointId: string,
  settings: DrainSettings,
  log: Logger,
  counted: (o: DeliveryOutcome) => void,
  /** Called after each attempt: the drain's organisation slot is renewed (org-slots.ts). */
  attempted: () => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  const ep = await findEndpointById(db, endpointId);
  if (!ep) return;
  if (ep.retry && ep.retry.next_at > new Date().toISOString()) return;
  const secret = decryptSecret(settings.secretKey, ep.secret_encrypted);
  let progress: Pick<WebhookEndpointDoc, 'delivered_through' | 'retry'> = {
    delivered_through: ep.delivered_through,
    retry: ep.retry,
  };
  for (;;) {
    // One `now` for both reads: the same settled cut-off (shared/storage/events.ts).
    const now = new Date();
    const { events, through } = await listEvents(db, {
      org_id: ep.org_id,
      after: progress.delivered_through,
      types: ep.event_types,
      limit: PAGE,
      now,
    });
    if (events.length === 0) {
      // Nothing this endpoint subscribed to: skip past what was read (other types, gaps), so the dispatcher stops calling.
      if (through > progress.delivered_through)
        await saveProgress(db, ep._id, { ...progress, delivered_through: through });
      return;
    }
    for (const event of events) {
      const attempt = progress.retry?.event_id === event.id ? progress.retry.attempts + 1 : 1;
      const body = JSON.stringify(event);
      const result = await sendEvent(
        ep.url,
        body,
        {
          [EVENT_ID_HEADER]: event.id,
          [SIGNATURE_HEADER]: signatureHeader(secret, body, Math.floor(Date.now() / 1000)),
        },
        settings,
      );
      const outcome: DeliveryOutcome = result.ok
        ? 'delivered'
        : attempt >= settings.maxAttempts
          ? 'given_up'
          : 'failed';
      const at = new Date();
      const nextAt =
        outcome === 'failed' ? new Date(at.getTime() + retryDelayMs(attempt, settings.backoffMs)).toISOString() : null;
      await recordDelivery(db, {
        org_id: ep.org_id,
        endpoint_id: ep._id,
        event_id: event.id,
        event_type: event.type,
        sequence: event.sequence,
        attempt,
        at: at.toISOString(),
        outcome,
        status_code: result.status_code,
        error: result.error,
        duration_ms: result.duration_ms,
        next_retry_at: nextAt,
      });
      counted(outcome);
      await attempted();
      progress = nextAt
        ? {
            delivered_through: progress.delivered_through,
            retry: { event_id: event.id, sequence: event.sequence, attempts: attempt, next_at: nextAt },
          }
        : { delivered_through: event.sequence, retry: null };
      await saveProgress(db, ep._id, progress);
      logAttempt(log, ep, event, attempt, outcome, result.status_code, result.error);
      if (nextAt) return;
    }
  }
}

function logAttempt(
  log: Logger,
  ep: WebhookEndpointDoc,
  event: StoredEvent,
  attempt: number,
  outcome: DeliveryOutcome,
  status: number | null,
  error: string | null,
): void {
  const fields = {
    endpoint_id: ep._id,
    org_id: ep.org_id,
    event_id: event.id,
    sequence: event.sequence,
    attempt,
    outcome,
    status_code: status,
    error,
  };
  if (outcome === 'delivered') log.info(fields, 'webhook delivered');
  else log.warn(fields, 'webhook delivery failed');
}
