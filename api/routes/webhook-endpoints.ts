// Webhook endpoints (docs/reference/webhooks.md), scope webhooks:manage: create (the
// signing secret answered once), list, delete, and an endpoint's delivery
// attempts. Delivery itself runs in the worker (worker/webhooks/).
import { Router } from 'express';
import type { Db } from 'mongodb';
import { successEnvelope } from '../../shared/contract/envelope.js';
import { AppError } from '../../shared/errors.js';
import {
  DELIVERIES_DEFAULT_LIMIT,
  deliveriesQuerySchema,
  EVENTS_NUMERIC_PARAMS,
  webhookEndpointCreateSchema,
  webhookEndpointParamsSchema,
  type WebhookEndpointCreate,
} from '../../shared/schemas/events.js';
import { compile } from '../../shared/schemas/validator.js';
import type { WebhookDeliveryDoc, WebhookEndpointDoc } from '../../shared/storage/collections.js';
import { latestSequence } from '../../shared/storage/events.js';
import {
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
} from '../../shared/storage/webhook-endpoints.js';
import { urlProblem } from '../../shared/webhook-address.js';
import { encryptSecret, newWebhookSecret } from '../../shared/webhook-secret.js';
import { locals } from '../context.js';

import { queryObject } from '../query-string.js';
import { mountRoute } from './mount.js';

const BASE = '/api/v1/cli/webhook-endpoints';
const validateCreate = compile<WebhookEndpointCreate>(webhookEndpointCreateSchema);
const validateParams = compile<{ id: string }>(webhookEndpointParamsSchema, '/path');
const validateDeliveries = compile<{ limit?: number }>(deliveriesQuerySchema, '/query');

export interface WebhookRouteSettings {
  /** config WEBHOOK_SECRET_KEY: encrypts the signing secrets at rest. */
  secretKey: string;
  /** config WEBHOOK_ALLOW_INSECURE. */
  allowInsecure: boolean;
}

export function webhookEndpointRoutes(db: Db, settings: WebhookRouteSettings | undefined): Router {
  const router = Router();

  mountRoute(router, db, 'webhook_endpoints.create', async (req, res) => {
    const body = validateCreate(req.body ?? {});
    if (!body.ok) throw new AppError('validation_failed', { errors: body.errors });
    if (!settings)
      throw new AppError('service_unavailable', { details: { reason: 'webhook_secret_key_not_configured' } });
    const problem = urlProblem(body.value.url, settings.allowInsecure);
    if (problem) throw new AppError('webhook_url_refused', { details: { url: body.value.url, reason: problem } });
    const auth = locals(res).auth!;
    const secret = newWebhookSecret();
    const doc = await insertEndpoint(db, {
      org_id: auth.org_id,
      url: body.value.url,
      event_types: body.value.event_types ?? [],
      description: body.value.description ?? null,
      secret_encrypted: encryptSecret(settings.secretKey, secret),
      created_by: auth.actor,
      created_at: new Date().toISOString(),
      // Events from now on: the first delivered is the first reserved after this.
      delivered_through: await latestSequence(db, auth.org_id),
      retry: null,
    });
    res
      .status(201)
      .location(`${BASE}/${doc._id}`)
      .json(successEnvelope('webhook_endpoints.create', locals(res).requestId, { ...endpointView(doc), secret }));
  });

  mountRoute(router, db, 'webhook_endpoints.list', async (_req, res) => {
    const auth = locals(res).auth!;
    const items = (await listEndpoints(db, auth.org_id)).map(endpointView);
    res.json(successEnvelope('webhook_endpoints.list', locals(res).requestId, { items }));
  });

  mountRoute(router, db, 'webhook_endpoints.delete', async (req, res) => {
    const id = endpointId(req.params.id);
    if (!(await deleteEndpoint(db, locals(res).auth!.org_id, id))) throw notFound(id);
    res.json(successEnvelope('webhook_endpoints.delete', locals(res).requestId, { id, deleted: true }));
  });

  mountRoute(router, db, 'webhook_endpoints.deliveries', async (req, res) => {
    const id = endpointId(req.params.id);
    const query = validateDeliveries(queryObject(req.query, EVENTS_NUMERIC_PARAMS));
    if (!query.ok) throw new AppError('validation_failed', { errors: query.errors });
    const orgId = locals(res).auth!.org_id;
    if (!(await findEndpoint(db, orgId, id))) throw notFound(id);
    const items = (await listDeliveries(db, orgId, id, query.value.limit ?? DELIVERIES_DEFAULT_LIMIT)).map(
      deliveryView,
    );
    res.json(successEnvelope('webhook_endpoints.deliveries', locals(res).requestId, { items }));
  });
  return router;
}

function endpointId(raw: unknown): string {
  const params = validateParams({ id: raw });
  if (!params.ok) throw new AppError('validation_failed', { errors: params.errors });
  return params.value.id;
}

const notFound = (id: string) => new AppError('not_found', { details: { resource: 'Webhook endpoint', id } });

function endpointView(doc: WebhookEndpointDoc) {
  return {
    id: doc._id,
    url: doc.url,
    event_types: doc.event_types,
    description: doc.description,
    created_by: doc.created_by,
    created_at: doc.created_at,
    delivered_through: doc.delivered_through,
    retry: doc.retry,
  };
}

function deliveryView(d: WebhookDeliveryDoc) {
  return {
    id: d._id,
    event_id: d.event_id,
    event_type: d.event_type,
    sequence: d.sequence,
    attempt: d.attempt,
    at: d.at,
    outcome: d.outcome,
    status_code: d.status_code,
    error: d.error,
    duration_ms: d.duration_ms,
    next_retry_at: d.next_retry_at,
  };
}
