// A staging answer (staged, noop, blocked) as a summary: what happened, the
// plan, and how to go on.
import type { DryRunData, StagingResultData } from './answer-data.js';
import { KINDS, kindOfOperation } from '../../../shared/kinds/registry.js';
import { renderPlan } from './plans.js';
import type { Style } from './style.js';
import { table } from './table.js';

/** A dry run: what a staging would do, its plan and summary; nothing was stored. */
export function renderDryRun(style: Style, operation: string | null, data: DryRunData): string {
  const kind = kindOfOperation(operation);
  const label = kind ? KINDS[kind].cli.label : 'operation';
  let out = `${style.bold('Dry run')}: nothing was staged or stored. `;
  if (data.outcome === 'staged') out += `Staging now would stage this ${label} for review.\n`;
  else if (data.outcome === 'noop') out += `There is nothing to do: staging now would stage nothing.\n`;
  else {
    out += `The ${label} cannot be planned.\n`;
    out += table(
      style,
      ['blocker', 'ids'],
      (data.blockers ?? []).map((b) => [b.code, (b.ids ?? []).join(', ')]),
    );
  }
  const summary = Object.entries(data.summary ?? {});
  if (summary.length > 0) out += `Summary: ${summary.map(([k, v]) => `${k} ${String(v)}`).join(', ')}\n`;
  out += renderPlan(style, kind, data.plan);
  if (data.plan_hash) out += style.dim(`plan_hash ${data.plan_hash}`) + '\n';
  if (data.outcome === 'staged') out += 'Stage it: run the same command without --dry-run.\n';
  return out;
}

export function renderStagingResult(
  style: Style,
  operation: string | null,
  data: StagingResultData,
  warnings: Array<{ code: string }>,
): string {
  const kind = kindOfOperation(operation);
  const label = kind ? KINDS[kind].cli.label : 'operation';
  let out = '';
  if (data.outcome === 'staged') {
    const again = warnings.some((w) => w.code === 'already_staged');
    out += again
      ? `${style.green('Already staged')}: the same ${label} is pending as ${style.bold(data.staged_operation_id)}; nothing new was created.\n`
      : `${style.green('Staged')} ${label} ${style.bold(data.staged_operation_id)}.\n`;
    out += `Status ${data.status}, expires ${data.expires_at}. Nothing in the books changes until it is approved and applied.\n`;
  } else if (data.outcome === 'noop') {
    const why = (kind && KINDS[kind].cli.noop) ?? 'there is nothing to do';
    out += `${style.green('Nothing to do')}: ${why}; nothing was staged.\n`;
  } else if (data.outcome === 'blocked') {
    out += `${style.red('Blocked')}: the ${label} cannot be planned; nothing was staged.\n`;
    out += table(
      style,
      ['blocker', 'ids'],
      (data.blockers ?? []).map((b) => [b.code, (b.ids ?? []).join(', ')]),
    );
  }
  out += renderPlan(style, kind, data.plan);
  if (data.plan_hash) out += style.dim(`plan_hash ${data.plan_hash}`) + '\n';
  if (data.outcome === 'staged') {
    out += `Review it: bookstage staged show ${data.staged_operation_id}\n`;
  }
  return out;
}
