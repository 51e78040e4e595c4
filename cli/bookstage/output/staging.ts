// A staging answer (staged, noop, blocked) as a summary: what happened, the
// plan, and how to go on.
import type { StagingResultData } from './answer-data.js';
import { renderPlan } from './plans.js';
import type { Style } from './style.js';
import { table } from './table.js';

const KIND_LABEL: Record<string, string> = {
  'bank_reconcile.stage': 'bank reconciliation',
  'ledger_link_repair.stage': 'link repair',
  'ledger_reversal.stage': 'ledger reversal',
  'statement_import.stage': 'statement import',
};

export function renderStagingResult(style: Style, operation: string | null, data: StagingResultData, warnings: Array<{ code: string }>): string {
  const label = (operation && KIND_LABEL[operation]) ?? 'operation';
  let out = '';
  if (data.outcome === 'staged') {
    const again = warnings.some((w) => w.code === 'already_staged');
    out += again
      ? `${style.green('Already staged')}: the same ${label} is pending as ${style.bold(data.staged_operation_id)}; nothing new was created.\n`
      : `${style.green('Staged')} ${label} ${style.bold(data.staged_operation_id)}.\n`;
    out += `Status ${data.status}, expires ${data.expires_at}. Nothing in the books changes until it is approved and applied.\n`;
  } else if (data.outcome === 'noop') {
    out += operation === 'statement_import.stage'
      ? `${style.green('Nothing to do')}: every entry of the file is already on the account; nothing was staged.\n`
      : `${style.green('Nothing to do')}: the links already follow FIFO; nothing was staged.\n`;
  } else if (data.outcome === 'blocked') {
    out += `${style.red('Blocked')}: the ${label} cannot be planned; nothing was staged.\n`;
    out += table(style, ['blocker', 'ids'], (data.blockers ?? []).map((b) => [b.code, (b.ids ?? []).join(', ')]));
  }
  out += renderPlan(style, data.plan);
  if (data.plan_hash) out += style.dim(`plan_hash ${data.plan_hash}`) + '\n';
  if (data.outcome === 'staged') {
    out += `Review it: bookstage staged show ${data.staged_operation_id}\n`;
  }
  return out;
}
