// Shortcuts for the staged-operation lifecycle tests: the actors of one org
// and the calls they make.
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import type { StagedOperationData } from './answers.js';
import { call, type Answer } from './http.js';
import { collections, type StagedOperationDoc, type StoredOperationBody } from '../../shared/storage/collections.js';
import { decodeOperation, storedBodyIds } from '../../shared/storage/staged-operation-codec.js';
import { decodeStoredOperations } from '../../shared/storage/staged-operations.js';
import { stack } from './stack.js';

export const STAGED = '/api/v1/cli/staged-operations';

export interface Actors {
  /** Stages (and may apply), cannot approve. */
  alice: string;
  /** Approves and applies. */
  bob: string;
  /** A second approver. */
  dave: string;
  /** Reads only: may see only what she created. */
  carol: string;
}

export async function actors(orgId: string): Promise<Actors> {
  const s = await stack();
  const stageScopes: TokenScope[] = ['bank:stage', 'ledger:stage', 'staged:read', 'staged:apply'];
  const reviewScopes: TokenScope[] = ['staged:read', 'staged:approve', 'staged:apply'];
  return {
    alice: await s.token(orgId, stageScopes, 'alice'),
    bob: await s.token(orgId, reviewScopes, 'bob'),
    dave: await s.token(orgId, reviewScopes, 'dave'),
    carol: await s.token(orgId, ['staged:read', 'staged:apply'], 'carol'),
  };
}

export const approve = (
  token: string,
  id: string,
  note?: string,
  headers: Record<string, string> = {},
): Promise<Answer<StagedOperationData>> =>
  call<StagedOperationData>('POST', `${STAGED}/${id}/approve`, {
    token,
    body: note === undefined ? {} : { note },
    headers,
  });
export const reject = (token: string, id: string, note: string): Promise<Answer<StagedOperationData>> =>
  call<StagedOperationData>('POST', `${STAGED}/${id}/reject`, { token, body: { note } });
export const apply = (
  token: string,
  id: string,
  headers: Record<string, string> = {},
): Promise<Answer<StagedOperationData>> =>
  call<StagedOperationData>('POST', `${STAGED}/${id}/apply`, { token, headers });
export const show = (token: string, id: string): Promise<Answer<StagedOperationData>> =>
  call<StagedOperationData>('GET', `${STAGED}/${id}`, { token });

export async function locksOf(operationId: string): Promise<number> {
  return (await stack()).db.collection('scope_locks').countDocuments({ staged_operation_id: operationId });
}

export async function doc(collection: string, id: string): Promise<Record<string, unknown> | null> {
  return (await stack()).db.collection(collection).findOne({ _id: id } as never);
}

export async function docs(collection: string, filter: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  return (await stack()).db
    .collection(collection)
    .find(filter as never)
    .sort({ _id: 1 })
    .toArray();
}

/** Staged operations as stored, decoded (their plan, preconditions, context, journal and result are stored as JSON text: shared/storage/staged-operation-codec.ts). */
export async function storedOperations(filter: Record<string, unknown>): Promise<StagedOperationDoc[]> {
  const { db } = await stack();
  return decodeStoredOperations(
    db,
    await collections(db)
      .stagedOperations.find(filter as never)
      .sort({ _id: 1 })
      .toArray(),
  );
}

export async function storedOperation(id: string): Promise<StagedOperationDoc | null> {
  return (await storedOperations({ _id: id }))[0] ?? null;
}

/** How many stored operations (of those `filter` selects) have a plan holding every field of `plan`. */
export async function countStagedWithPlan(
  plan: Record<string, unknown>,
  filter: Record<string, unknown> = {},
): Promise<number> {
  const holds = (op: StagedOperationDoc): boolean =>
    Object.entries(plan).every(([k, v]) => (op.plan as Record<string, unknown> | null)?.[k] === v);
  // Only the plan is read and decoded: the store holds other tests' operations too, some with plans, preconditions and context of many MB.
  const c = collections((await stack()).db);
  const stored = await c.stagedOperations
    .find(filter as never, { projection: { plan_json: 1, plan: 1, body_id: 1, body_parts: 1, org_id: 1 } })
    .toArray();
  const bodyIds = stored.flatMap(storedBodyIds);
  const bodies = new Map<string, StoredOperationBody>();
  for (let i = 0; i < bodyIds.length; i += 500) {
    // Only the plan: decodeOperation reads the other two fields as given.
    for (const b of await c.stagedOperationBodies
      .find({ _id: { $in: bodyIds.slice(i, i + 500) } }, { projection: { plan_json: 1, org_id: 1 } })
      .toArray())
      bodies.set(b._id, b);
  }
  return stored
    .map((d) =>
      decodeOperation(
        d,
        storedBodyIds(d).map((id) => bodies.get(id)),
      ),
    )
    .filter(holds).length;
}
