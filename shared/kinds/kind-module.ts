// What each staged kind states once, in its own folder (docs/design/architecture.md
// "Kinds"): its staging call's route entry, the summary a reviewer reads first,
// its name in the CLI's sentences and its MCP tool's text. The registry
// (registry.ts) holds one per member of StagedKind; the route table, OpenAPI,
// the MCP catalogue, the CLI output and the stored operations' summaries read it.
import type { ErrorCode } from '../errors.js';
import type { RouteContract } from '../contract/route-parts.js';
import type { StagedKind } from '../domain/staged-kind.js';
import type { PlanContext } from '../domain/plan-context.js';
import type { KindAmount } from './operation-amount.js';

/** The operation name of a kind's staging call. */
export type StageOperationOf<K extends StagedKind> = `${K}.stage`;

export interface KindModule<K extends StagedKind> {
  kind: K;
  /** The route table's entry of its staging call (its operation is `<kind>.stage`). */
  route: RouteContract & { operation: StageOperationOf<K> };
  /** The refusals of its own planning (beside the staging path's), which a job's poll can answer too. */
  refusals: readonly ErrorCode[];
  /** The counts and amounts of a plan of this kind (docs/guide/review-page.md "Views"). Pure. */
  summary(plan: unknown): Record<string, unknown>;
  /**
   * The operation's amount (docs/reference/http-api.md "Amount of each kind"),
   * from its plan and the context stored beside it. Pure, exact.
   */
  amount(plan: unknown, context: PlanContext): KindAmount;
  /**
   * A change of the governance itself (a period close): approved by a person who did not stage it, whatever the
   * approval policy says, never unattended (docs/design/staged-lifecycle.md "Closed periods").
   */
  governance?: true;
  /** How the CLI's sentences name it ("Staged bank reconciliation stg_…"), and what a noop answer says, if it can have one. */
  cli: { label: string; noop?: string };
  /**
   * Its MCP tool (docs/guide/agents.md): the name and title an agent sees, and the description; `gate: 'review'`
   * offers it only when a person started the server with --allow-review (a governance change such as a period close).
   */
  mcp: { name: string; title: string; description: string; gate?: 'review' };
  /** A revert: the operation its plan reverts (the view's `reverts`, docs/design/staged-lifecycle.md "Reverts"). */
  reverts?(plan: unknown): string;
}
