// The approvals of a staged operation (docs/design/staged-lifecycle.md
// "Approval policies"). FerretDB 1.24 has no atomic guarded update of an
// array, so approvals are never pushed onto the operation: each is two unique
// inserts. The actor's document (`_id` from operation and actor) refuses the
// same actor twice; its slot (`_id` from operation and slot number) is where it
// counts, so two actors at once take two slots and both count, and an approval
// that finds every slot taken did not count (the operation was approved
// without it). An operation read for an answer gets its slots merged into its
// `approval.given`, after the policy's own approval recorded at staging.
import type { Db } from 'mongodb';
import { derivedId } from '../ids.js';
import { collections, type ApprovalDoc, type StagedOperationDoc } from './collections.js';
import { eventView, withNewEvent } from './events.js';
import { isUniqueViolation } from './unique-violation.js';

export const approvalActorId = (stagedOperationId: string, actor: string): string =>
  derivedId('apr', `${stagedOperationId}:actor:${actor}`);
const approvalSlotId = (stagedOperationId: string, slot: number): string =>
  derivedId('apr', `${stagedOperationId}:slot:${slot}`);

/** Insert once: `inserted`; `ours` when this very job inserted it already (a retried attempt); `taken` by another. */
async function insertOnce(db: Db, doc: ApprovalDoc): Promise<'inserted' | 'ours' | 'taken'> {
  const approvals = collections(db).approvals;
  try {
    await approvals.insertOne(doc);
    return 'inserted';
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const existing = await approvals.findOne({ _id: doc._id, org_id: doc.org_id });
  return existing?.claim_id === doc.claim_id ? 'ours' : 'taken';
}

/** The actor's document: false when the actor approved before (another job of it). */
export async function recordApprover(db: Db, approval: Omit<ApprovalDoc, '_id' | 'slot'>): Promise<boolean> {
  const doc: ApprovalDoc = {
    ...approval,
    _id: approvalActorId(approval.staged_operation_id, approval.actor),
    slot: null,
  };
  return (await insertOnce(db, doc)) !== 'taken';
}

/**
 * The first free slot from `first` to `last` for this approval (or the one this
 * job took already): its number, or null when all are taken (the approval does
 * not count; its actor's document is removed, so it may approve another time).
 */
export async function takeSlot(
  db: Db,
  approval: Omit<ApprovalDoc, '_id' | 'slot'>,
  first: number,
  last: number,
): Promise<number | null> {
  for (let slot = first; slot <= last; slot += 1) {
    const doc: ApprovalDoc = { ...approval, _id: approvalSlotId(approval.staged_operation_id, slot), slot };
    if ((await insertOnce(db, doc)) !== 'taken') return slot;
  }
  await collections(db).approvals.deleteOne({
    _id: approvalActorId(approval.staged_operation_id, approval.actor),
    org_id: approval.org_id,
    claim_id: approval.claim_id,
  });
  return null;
}

/** The counted approvals (slots) of the operations `ids`, in slot order. */
export async function findApprovals(db: Db, orgId: string, ids: readonly string[]): Promise<ApprovalDoc[]> {
  if (ids.length === 0) return [];
  const filter =
    ids.length === 1
      ? { org_id: orgId, staged_operation_id: ids[0]! }
      : { org_id: orgId, staged_operation_id: { $in: [...ids] } };
  const found = await collections(db).approvals.find(filter).toArray();
  return found.filter((a) => a.slot !== null).sort((a, b) => a.slot! - b.slot!);
}

/**
 * The operation with its slots' approvals in `approval.given` after what it
 * stored, and `remaining` counted again. An operation without `approval`
 * (staged before policies) is as it was. Idempotent.
 */
export function mergeApprovals(doc: StagedOperationDoc, approvals: readonly ApprovalDoc[]): StagedOperationDoc {
  if (!doc.approval) return doc;
  const given = [...doc.approval.given];
  for (const a of approvals) {
    if (a.staged_operation_id === doc._id && !given.some((g) => g.actor === a.actor))
      given.push({ actor: a.actor, at: a.at });
  }
  const remaining = Math.max(0, doc.approval.required - given.length);
  return { ...doc, approval: { ...doc.approval, given, remaining } };
}

/** The operation with its approvals merged in (one read by operation; none for one staged before policies). */
export async function withApprovals(db: Db, doc: StagedOperationDoc): Promise<StagedOperationDoc> {
  if (!doc.approval) return doc;
  return mergeApprovals(doc, await findApprovals(db, doc.org_id, [doc._id]));
}

/** Several operations of one organisation with their approvals merged in: one read for all. */
export async function withApprovalsAll(
  db: Db,
  orgId: string,
  docs: readonly StagedOperationDoc[],
): Promise<StagedOperationDoc[]> {
  const ids = docs.filter((d) => d.approval).map((d) => d._id);
  const approvals = await findApprovals(db, orgId, ids);
  return docs.map((d) => mergeApprovals(d, approvals));
}

/**
 * The event `staged_operation.approval_added` of one approval under a set
 * policy (the last one's `approved` event follows it), once (its id derived
 * from the approval's slot): `op` is the operation with that approval merged in.
 */
export async function recordApprovalAdded(
  db: Db,
  op: StagedOperationDoc,
  approval: Pick<ApprovalDoc, 'actor' | 'at' | 'note' | 'request_id'>,
  slot: number,
): Promise<void> {
  const _id = derivedId('aud', `${approvalSlotId(op._id, slot)}:approval_added`);
  try {
    await withNewEvent(db, op.org_id, _id, 'approval_added', eventView(op), (fields) =>
      collections(db).auditEvents.insertOne({
        _id,
        org_id: op.org_id,
        at: approval.at,
        actor: approval.actor,
        request_id: approval.request_id,
        staged_operation_id: op._id,
        from: op.status,
        to: op.status,
        note: approval.note,
        ...fields,
      }),
    );
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}

/**
 * Remove the approvals of `actors` (their slot and their actor's document):
 * those that no longer qualify when apply sent the operation back to
 * `staged` (docs/design/staged-lifecycle.md "Apply checks the policy again").
 */
export async function removeApprovals(
  db: Db,
  orgId: string,
  stagedOperationId: string,
  actors: readonly string[],
): Promise<void> {
  if (actors.length === 0) return;
  await collections(db).approvals.deleteMany({
    org_id: orgId,
    staged_operation_id: stagedOperationId,
    actor: { $in: [...actors] },
  });
}
