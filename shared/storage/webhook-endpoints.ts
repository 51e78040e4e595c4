// Webhook endpoints and their delivery progress (docs/reference/webhooks.md). Only
// one drain job per endpoint runs at a time (its BullMQ job id is the
// endpoint's), so the progress fields have one writer and are updated by
// `_id`.
import type { Db } from 'mongodb';
import { newId } from '../ids.js';
import { collections, type WebhookDeliveryDoc, type WebhookEndpointDoc } from './collections.js';

export async function insertEndpoint(db: Db, doc: Omit<WebhookEndpointDoc, '_id'>): Promise<WebhookEndpointDoc> {
  const endpoint = { _id: newId('whe'), ...doc };
  await collections(db).webhookEndpoints.insertOne(endpoint);
  return endpoint;
}

export function findEndpoint(db: Db, orgId: string, id: string): Promise<WebhookEndpointDoc | null> {
  return collections(db).webhookEndpoints.findOne({ _id: id, org_id: orgId });
}

export function listEndpoints(db: Db, orgId: string): Promise<WebhookEndpointDoc[]> {
  return collections(db)
    .webhookEndpoints.find({ org_id: orgId })
    .sort({ created_at: -1, _id: -1 })
    .limit(1000)
    .toArray();
}

export function findEndpointById(db: Db, id: string): Promise<WebhookEndpointDoc | null> {
  return collections(db).webhookEndpoints.findOne({ _id: id });
}

/** Every endpoint of every organisation: what the dispatcher looks through. */
export function allEndpoints(db: Db): Promise<WebhookEndpointDoc[]> {
  return collections(db).webhookEndpoints.find({}).toArray();
}

/** Deleting stops its deliveries; its past attempts go with the retention sweep. */
export async function deleteEndpoint(db: Db, orgId: string, id: string): Promise<boolean> {
  return (await collections(db).webhookEndpoints.deleteOne({ _id: id, org_id: orgId })).deletedCount === 1;
}

export async function saveProgress(
  db: Db,
  id: string,
  progress: Pick<WebhookEndpointDoc, 'delivered_through' | 'retry'>,
): Promise<void> {
  await collections(db).webhookEndpoints.updateOne({ _id: id }, { $set: progress });
}

export async function recordDelivery(db: Db, attempt: Omit<WebhookDeliveryDoc, '_id'>): Promise<void> {
  await collections(db).webhookDeliveries.insertOne({ _id: newId('whd'), ...attempt });
}

/** An endpoint's attempts, newest first. */
export function listDeliveries(
  db: Db,
  orgId: string,
  endpointId: string,
  limit: number,
): Promise<WebhookDeliveryDoc[]> {
  return collections(db)
    .webhookDeliveries.find({ org_id: orgId, endpoint_id: endpointId })
    .sort({ at: -1, _id: -1 })
    .limit(limit)
    .toArray();
}

export async function sweepDeliveries(db: Db, before: Date): Promise<number> {
  return (await collections(db).webhookDeliveries.deleteMany({ at: { $lt: before.toISOString() } })).deletedCount;
}
