// Any answer of the API as a readable summary, chosen by the shape of its
// envelope: an error, a pending job, a page of duplicates, staged
// operations, or a staging result. Warnings follow the summary.
import { dataOf, warningsOf, type Answer } from '../http-client.js';
import {
  isDryRun,
  isDuplicatesPage,
  isPending,
  isStagedList,
  isStagedOperation,
  isStagingResult,
} from './answer-data.js';
import { renderBookRead } from './books.js';
import { renderDuplicateGroups } from './duplicates.js';
import { renderError } from './errors.js';
import { renderEventsAnswer } from './events.js';
import { renderStagedList, renderStagedOperation } from './staged-operations.js';
import { renderPeriods } from './periods.js';
import { renderDryRun, renderStagingResult } from './staging.js';
import { approvalPolicy } from './plans.js';
import type { ApprovalPolicy } from '../../../shared/domain/approval-policy.js';
import type { Style } from './style.js';

export function renderAnswer(style: Style, answer: Answer): string {
  const env = answer.envelope;
  if (!env || typeof env !== 'object') return `HTTP ${answer.status}: ${answer.text.slice(0, 2000)}\n`;
  if (!env.ok && env.error) return renderError(style, answer.status, env);
  const data = dataOf(answer);
  const warnings = warningsOf(answer) ?? [];
  let out: string;
  const book =
    renderBookRead(style, env.operation ?? null, data) ??
    renderEventsAnswer(style, env.operation ?? null, data) ??
    renderPeriods(style, env.operation ?? null, data);
  if (book !== null) {
    out = book;
  } else if (env.operation === 'approval_policy.show' && data !== null && typeof data === 'object') {
    // The policy in force, as the plan of a change shows the one it puts in force.
    const p = data as ApprovalPolicy;
    out = approvalPolicy(style, `version ${style.bold(String(p.version))} (in force)`, p);
  } else if (isPending(data)) {
    out =
      `${style.yellow('Pending')}: job ${style.bold(data.job_id)} is still running; nothing is lost.\n` +
      `Follow it: bookstage jobs show ${data.job_id} --follow\n`;
  } else if (isDuplicatesPage(data)) {
    out = renderDuplicateGroups(style, data.groups);
  } else if (env.operation === 'staged_operations.list' && isStagedList(data)) {
    // By operation too: the event feed and webhook lists are `items` lists of other things.
    out = renderStagedList(style, data.items);
  } else if (isStagedOperation(data)) {
    // Apply of an operation an earlier apply applied (warning already_applied): exit 0, and say so first.
    const again = warnings.some((w) => w.code === 'already_applied');
    out = (again ? `${style.yellow('already applied; nothing written')}\n` : '') + renderStagedOperation(style, data);
  } else if (isDryRun(data)) {
    out = renderDryRun(style, env.operation, data);
  } else if (isStagingResult(data)) {
    out = renderStagingResult(style, env.operation, data, warnings);
  } else {
    out = `${JSON.stringify(data, null, 2)}\n`;
  }
  for (const w of warnings) {
    if (w.code === 'already_staged' || w.code === 'already_applied') continue; // said in the summary
    out += `${style.yellow('Warning')} ${w.code}: ${w.message}\n`;
  }
  return out;
}
