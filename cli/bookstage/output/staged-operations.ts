// Staged operations (list, show, and the answers of approve, reject and
// apply): who staged what, its status and history, and its plan.
import { renderPlan } from './plans.js';
import type { Style } from './style.js';
import { table } from './table.js';

type Data = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- read defensively

export function renderStagedList(style: Style, items: Data[]): string {
  if (items.length === 0) return 'No staged operations.\n';
  return table(style, ['id', 'kind', 'status', 'created by', 'created at', 'expires at'],
    items.map((o) => [o.staged_operation_id, o.kind, o.status, o.created_by, o.created_at, o.expires_at]));
}

export function renderStagedOperation(style: Style, op: Data): string {
  let out = `${style.bold(op.staged_operation_id)}  ${op.kind}  status ${style.bold(String(op.status))}\n`;
  out += `Created by ${op.created_by} at ${op.created_at}; expires ${op.expires_at}\n`;
  if (op.result !== undefined && op.result !== null) out += `Result: ${typeof op.result === 'string' ? op.result : JSON.stringify(op.result)}\n`;
  out += renderPlan(style, op.plan);
  if (op.plan_hash) out += style.dim(`plan_hash ${op.plan_hash}`) + '\n';
  const history: Data[] = op.history ?? [];
  if (history.length > 0) {
    out += 'History:\n' + table(style, ['at', 'actor', 'change', 'note'], history.map((h) => [h.at, h.actor, `${h.from ?? '—'} → ${h.to}`, h.note ?? '']));
  }
  return out;
}
