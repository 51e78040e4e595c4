// Approval policies: which rule governs an operation, who may approve it, when
// it is approved, and whether what it was given still holds at apply. Pure: the worker loads the
// policy, the operation and the approver; storage records the outcome.
import type { StagedKind } from './staged-kind.js';

/** Who may approve under a rule: anyone but the creator, or people only (no agent). */
export type Approvers = 'any' | 'people';

export interface ApprovalRule {
  /** Kinds this rule governs; `"*"` governs every kind. */
  kinds: readonly (StagedKind | '*')[];
  /** The rule applies to operations of at least this amount (minor units); 0 when absent. */
  min_amount_minor?: number;
  /** Distinct approvers needed, 1–5. */
  approvals: number;
  approvers: Approvers;
}

export interface UnattendedAllowance {
  /** The actor whose stagings the policy approves itself, e.g. `agent:recon-bot`. */
  actor: string;
  kinds: readonly (StagedKind | '*')[];
  /** At most this amount per operation (minor units). */
  max_amount_minor: number;
  /** At most this total per UTC day, this operation included (minor units). */
  max_per_day_minor: number;
}

export interface ApprovalPolicy {
  /** 0: the organisation never set one (today's rule: one approval by anyone, `require_distinct_approver` decides about the creator). */
  version: number;
  rules: readonly ApprovalRule[];
  agents_may_approve: boolean;
  unattended: readonly UnattendedAllowance[];
}

/** A policy change as staged (shared/kinds/approval-policy/plan.ts): the policy applying it puts in force. */
export interface ApprovalPolicyPlan {
  /** The version in force when it was staged. */
  base_version: number;
  /** The version applying it makes current: base_version + 1. */
  version: number;
  rules: ApprovalRule[];
  agents_may_approve: boolean;
  unattended: UnattendedAllowance[];
}

/** The `_id` of an organisation's policy of `version`: one document per version, the highest in force. */
export const approvalPolicyId = (orgId: string, version: number): string =>
  `${orgId}:${String(version).padStart(10, '0')}`;

/** The policy of an organisation that never set one. */
export const DEFAULT_POLICY: ApprovalPolicy = {
  version: 0,
  rules: [{ kinds: ['*'], approvals: 1, approvers: 'any' }],
  agents_may_approve: true,
  unattended: [],
};

/** What an operation is, as far as approval goes. */
export interface ApprovalSubject {
  kind: StagedKind;
  /** For a revert: the kind it reverts (a rule naming either governs it). */
  reverts_kind?: StagedKind | null;
  amount_minor: number;
  created_by: string;
  /**
   * A change of the governance itself (its kind module says so: a period close, a policy change): one approval
   * by a person who did not stage it at least, whatever the policy says, and never unattended.
   */
  governance?: boolean;
}

/** What the operation needs: recorded on it at staging, and again when apply finds the policy changed. */
export interface ApprovalRequirement {
  policy_version: number;
  /** The index of the deciding rule in the policy's `rules`; -1 where none matched and the default applied. */
  rule_index: number;
  required: number;
  approvers: Approvers;
}

export interface GivenApproval {
  /** The approving actor, or `policy:v<N>` for an unattended approval by policy version N. */
  actor: string;
  /** ISO 8601 UTC. */
  at: string;
}

export interface ApprovalState extends ApprovalRequirement {
  given: GivenApproval[];
  remaining: number;
}

/** The approving actor, as the worker knows it from the token. */
export interface Approver {
  actor: string;
  /** The token was created as an agent's (`admin tokens create --agent`). */
  agent_token: boolean;
}

/** An actor is an agent when its token was created as one or its name says so. */
export function isAgent(approver: Approver): boolean {
  return approver.agent_token || approver.actor.startsWith('agent:');
}

const UNATTENDED_PREFIX = 'policy:v';
/** The actor recorded for an unattended approval by policy `version`. */
export const unattendedActor = (version: number): string => `${UNATTENDED_PREFIX}${version}`;
const isUnattended = (given: GivenApproval): boolean => given.actor.startsWith(UNATTENDED_PREFIX);

const governs = (kinds: readonly string[], subject: Pick<ApprovalSubject, 'kind' | 'reverts_kind'>): boolean =>
  kinds.includes('*') ||
  kinds.includes(subject.kind) ||
  (subject.reverts_kind !== undefined && subject.reverts_kind !== null && kinds.includes(subject.reverts_kind));

/**
 * The requirement of `subject` under `policy`: the first rule that governs its
 * kind and whose minimum amount it reaches decides. With no such rule the
 * version-0 rule applies (one approval, anyone). Governance kinds need at
 * least one approval, by people.
 */
export function requirementFor(policy: ApprovalPolicy, subject: ApprovalSubject): ApprovalRequirement {
  const index = policy.rules.findIndex(
    (rule) => governs(rule.kinds, subject) && (rule.min_amount_minor ?? 0) <= subject.amount_minor,
  );
  const rule = index >= 0 ? policy.rules[index]! : DEFAULT_POLICY.rules[0]!;
  const governance = subject.governance === true;
  return {
    policy_version: policy.version,
    rule_index: index,
    required: Math.max(1, rule.approvals),
    approvers: governance ? 'people' : rule.approvers,
  };
}

/** The approval state an operation starts with: nothing given yet. */
export function initialApproval(requirement: ApprovalRequirement): ApprovalState {
  return { ...requirement, given: [], remaining: requirement.required };
}

/** Why an approver does not count. */
export type ApprovalRefusal =
  | { code: 'self_approval_forbidden'; details: { created_by: string } }
  | { code: 'approver_not_allowed'; details: { actor: string; approvers: Approvers; agents_may_approve: boolean } }
  | { code: 'already_approved'; details: { actor: string } };

/**
 * Whether `approver` may add an approval to `subject`, in the contract's
 * order: the creator, then an agent where agents may not approve, then the
 * same actor twice. Under version 0 the creator is refused only while the
 * organisation requires a distinct approver; under a set policy, always.
 */
export function approverRefusal(
  policy: Pick<ApprovalPolicy, 'version' | 'agents_may_approve'>,
  state: Pick<ApprovalState, 'approvers' | 'given'>,
  subject: Pick<ApprovalSubject, 'kind' | 'created_by' | 'governance'>,
  approver: Approver,
  requireDistinctApprover: boolean,
): ApprovalRefusal | null {
  const creatorBarred = policy.version >= 1 || requireDistinctApprover || subject.governance === true;
  if (creatorBarred && approver.actor === subject.created_by) {
    return { code: 'self_approval_forbidden', details: { created_by: subject.created_by } };
  }
  if (isAgent(approver) && (!policy.agents_may_approve || state.approvers === 'people')) {
    return {
      code: 'approver_not_allowed',
      details: { actor: approver.actor, approvers: state.approvers, agents_may_approve: policy.agents_may_approve },
    };
  }
  if (state.given.some((g) => g.actor === approver.actor)) {
    return { code: 'already_approved', details: { actor: approver.actor } };
  }
  return null;
}

/** The state after one more approval; `approved` once the given reach the required. */
export function addApproval(state: ApprovalState, approval: GivenApproval): ApprovalState & { approved: boolean } {
  const given = [...state.given, approval];
  const remaining = Math.max(0, state.required - given.length);
  return { ...state, given, remaining, approved: remaining === 0 };
}

/**
 * Whether the policy approves `subject` at staging, unattended: its creator is
 * named for its kind, its amount is within the per-operation limit, and the
 * creator's unattended total of the UTC day plus this amount is within the
 * day's limit. `dayTotalMinor` is that total before this operation.
 */
export function unattendedAllowance(
  policy: ApprovalPolicy,
  subject: ApprovalSubject,
  dayTotalMinor: number,
): UnattendedAllowance | null {
  if (subject.governance === true) return null;
  const allowance = policy.unattended.find((u) => u.actor === subject.created_by && governs(u.kinds, subject));
  if (!allowance) return null;
  if (subject.amount_minor > allowance.max_amount_minor) return null;
  if (dayTotalMinor + subject.amount_minor > allowance.max_per_day_minor) return null;
  return allowance;
}

/** Whether the current policy still admits an unattended approval of `subject` (apply; the day's total was settled at staging). */
function stillUnattended(policy: ApprovalPolicy, subject: ApprovalSubject): boolean {
  return unattendedAllowance(policy, subject, 0) !== null;
}

/** What apply decides about the approvals given: they hold, or the policy now asks for more. */
export type ApplyApprovalCheck = { outcome: 'holds' } | { outcome: 'policy_changed'; approval: ApprovalState };

/**
 * Apply checks the operation against the policy in force now. The approvals
 * that still qualify are kept: a person's where the creator is not the
 * approver and the approver kind is still admitted, an unattended one while
 * the policy still admits that actor, kind and amount unattended. When they
 * reach the requirement of now, the approval holds; otherwise the operation
 * goes back to `staged` with the new requirement and the kept approvals.
 * `agents` names the approvers that were agents when they approved.
 */
export function checkAtApply(
  policy: ApprovalPolicy,
  subject: ApprovalSubject,
  given: readonly GivenApproval[],
  agents: ReadonlySet<string>,
): ApplyApprovalCheck {
  const requirement = requirementFor(policy, subject);
  const unattendedHolds = stillUnattended(policy, subject);
  const kept = given.filter((g) => {
    if (isUnattended(g)) return unattendedHolds;
    if (policy.version >= 1 && g.actor === subject.created_by) return false;
    if (agents.has(g.actor) && (!policy.agents_may_approve || requirement.approvers === 'people')) return false;
    return true;
  });
  const unattendedKept = kept.some(isUnattended);
  if (unattendedKept || kept.length >= requirement.required) return { outcome: 'holds' };
  return {
    outcome: 'policy_changed',
    approval: { ...requirement, given: kept, remaining: requirement.required - kept.length },
  };
}
