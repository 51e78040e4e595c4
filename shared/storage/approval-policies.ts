// The approval policies of an organisation (docs/design/staged-lifecycle.md
// "Approval policies"): one document per version, inserted by the apply of the
// change that made it (shared/domain/apply-journal.ts); the highest version is in
// force, and an organisation without one has version 0 (DEFAULT_POLICY).
import type { Db } from 'mongodb';
import { approvalPolicyId, DEFAULT_POLICY, type ApprovalPolicy } from '../domain/approval-policy.js';
import { collections, type ApprovalPolicyDoc } from './collections.js';
import { findStagedOperation } from './staged-operations.js';
import { storeAdapter } from './store-adapter.js';

/** A policy as answered: version 0 has no update. */
export interface StoredApprovalPolicy extends ApprovalPolicy {
  updated_at: string | null;
  updated_by_operation: string | null;
}

const DEFAULT_STORED: StoredApprovalPolicy = { ...DEFAULT_POLICY, updated_at: null, updated_by_operation: null };

function fromDoc(doc: ApprovalPolicyDoc): StoredApprovalPolicy {
  return {
    version: doc.policy_version,
    rules: doc.rules,
    agents_may_approve: doc.agents_may_approve,
    unattended: doc.unattended,
    updated_at: doc.updated_at,
    updated_by_operation: doc.updated_by_operation,
  };
}

/**
 * The policy in force as answered: a version a revert wrote back (docs/design/staged-lifecycle.md "Reverts") was
 * updated by that revert, named by the reverted change's `reverted_by` once applied, at the end of its apply.
 */
export async function findCurrentPolicyAnswer(db: Db, orgId: string): Promise<StoredApprovalPolicy> {
  const doc = await highestVersion(db, orgId);
  if (!doc) return DEFAULT_STORED;
  const policy = fromDoc(doc);
  if (doc.reverts === undefined || doc.updated_by_operation !== null) return policy;
  const reverted = await findStagedOperation(db, orgId, doc.reverts);
  const revert = reverted?.reverted_by ? await findStagedOperation(db, orgId, reverted.reverted_by) : null;
  return revert ? { ...policy, updated_at: revert.result?.at ?? null, updated_by_operation: revert._id } : policy;
}

/** The policy in force: the organisation's highest version, or version 0. */
export async function findCurrentPolicy(db: Db, orgId: string): Promise<StoredApprovalPolicy> {
  const doc = await highestVersion(db, orgId);
  return doc ? fromDoc(doc) : DEFAULT_STORED;
}

/** The organisation's highest version's document, by the (org_id, policy_version) index: in SQL on FerretDB (the store port's `highest`). */
async function highestVersion(db: Db, orgId: string): Promise<ApprovalPolicyDoc | null> {
  const port = await storeAdapter(db);
  const doc = await port.highest({
    collection: collections(db).approvalPolicies.collectionName,
    equalities: { org_id: orgId },
    key: 'policy_version',
  });
  return doc as ApprovalPolicyDoc | null;
}

/**
 * The versions above `version`, by version: who wrote each, a later change (`operation`) or the revert of one
 * (`reverts`), for a policy change's revert (docs/design/staged-lifecycle.md "Reverts").
 */
export async function findPolicyVersionsAbove(
  db: Db,
  orgId: string,
  version: number,
): Promise<Array<{ version: number; operation: string | null; reverts: string | null }>> {
  const docs = await collections(db)
    .approvalPolicies.find(
      { org_id: orgId, policy_version: { $gt: version } },
      { projection: { policy_version: 1, updated_by_operation: 1, reverts: 1 } },
    )
    .sort({ policy_version: 1 })
    .toArray();
  return docs.map((d) => ({
    version: d.policy_version,
    operation: d.reverts === undefined ? d.updated_by_operation : null,
    reverts: d.reverts ?? null,
  }));
}

/** Versions read by `_id`, by (org, version): a version never changes once written, so a copy never goes stale. */
const byVersion = new Map<string, StoredApprovalPolicy>();
const CACHED_VERSIONS = 1_000;

/**
 * The policy of `version` (0: the default), read by `_id` once per process and version (docs/design/staged-lifecycle.md
 * "What a policy costs"); null when the organisation has no such version.
 */
export async function findPolicyVersion(db: Db, orgId: string, version: number): Promise<StoredApprovalPolicy | null> {
  if (version === 0) return DEFAULT_STORED;
  const id = approvalPolicyId(orgId, version);
  const cached = byVersion.get(id);
  if (cached) return cached;
  const doc = await collections(db).approvalPolicies.findOne({ _id: id, org_id: orgId });
  if (!doc) return null;
  const policy = fromDoc(doc);
  // A version a revert wrote back is cached without the updater its answer reads through the revert.
  if (byVersion.size >= CACHED_VERSIONS) byVersion.delete(byVersion.keys().next().value!);
  byVersion.set(id, policy);
  return policy;
}
