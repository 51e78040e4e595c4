// Staged operations (list, show, and the answers of approve, reject and
// apply): who staged what, its status and history, and its plan.
import type { StagedOperationDetail } from './answer-data.js';
import { formatMoney } from './money.js';
import { renderPlan } from './plans.js';
import type { Style } from './style.js';
import { table } from './table.js';

export function renderStagedList(style: Style, items: StagedOperationDetail[]): string {
  if (items.length === 0) return 'No staged operations.\n';
  return table(
    style,
    ['id', 'kind', 'status', 'created by', 'created at', 'expires at'],
    items.map((o) => [o.staged_operation_id, o.kind, o.status, o.created_by, o.created_at, o.expires_at]),
  );
}

export function renderStagedOperation(style: Style, op: StagedOperationDetail): string {
  let out = `${style.bold(op.staged_operation_id)}  ${op.kind}  status ${style.bold(String(op.status))}\n`;
  out += `Created by ${op.created_by} at ${op.created_at}; expires ${op.expires_at}\n`;
  // Its kind's amount (docs/reference/http-api.md "Amount of each kind"); a server before it answers none.
  if (typeof op.amount_minor === 'number') out += `Amount ${formatMoney(op.amount_minor, op.currency)}\n`;
  if (op.approval) out += `${approvalLine(op.approval)}\n`;
  out += renderResult(style, op.result);
  out += renderPlan(style, op.kind, op.plan);
  if (op.plan_hash) out += style.dim(`plan_hash ${op.plan_hash}`) + '\n';
  const history = op.history ?? [];
  if (history.length > 0) {
    out +=
      'History:\n' +
      table(
        style,
        ['at', 'actor', 'change', 'note'],
        history.map((h) => [h.at, h.actor, `${h.from ?? '—'} → ${h.to}`, h.note ?? '']),
      );
  }
  return out;
}

/** Once apply ended (docs/design/staged-lifecycle.md "Apply"): what it wrote, or the error it recorded. */
function renderResult(style: Style, result: StagedOperationDetail['result'] | undefined): string {
  if (result === undefined || result === null) return '';
  let out = `Result: ${style.bold(String(result.status))} at ${result.at} by ${result.by}\n`;
  const changes = result.changes ?? [];
  if (changes.length > 0)
    out += `Changes (${changes.length}):\n${table(
      style,
      ['action', 'collection', 'id'],
      changes.map((c) => [c.action, c.collection, c.id]),
    )}`;
  if (result.error) out += `Error ${style.bold(String(result.error.code))}: ${result.error.message}\n`;
  return out;
}

/**
 * What approving it takes and who approved (docs/design/staged-lifecycle.md "Approving under a policy"),
 * e.g. "Approvals: 1 of 2, people only: bob".
 */
export function approvalLine(approval: NonNullable<StagedOperationDetail['approval']>): string {
  const who = approval.given.map((g) => g.actor).join(', ');
  const people = approval.approvers === 'people' ? ', people only' : '';
  return `Approvals: ${approval.given.length} of ${approval.required}${people}${who ? `: ${who}` : ''}`;
}
