// An API answer as an MCP tool result (docs/guide/agents.md "Results"):
// structuredContent is the envelope's `data` with `request_id` and
// `warnings` beside its fields, or, for a refusal, the envelope's `error`
// with `request_id` and `isError: true`, so the agent reads the code and
// whether a retry may help. The content is a short summary for the model,
// then the same JSON as text for hosts that pass only text on (the MCP
// specification asks for both).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FieldError } from '../../../shared/errors.js';
import { warningsOf, type Answer } from '../http-client.js';
import {
  fieldOf,
  isDryRun,
  isDuplicatesPage,
  isPending,
  isStagedList,
  isStagedOperation,
  isStagingResult,
} from '../output/answer-data.js';

type Structured = Record<string, unknown>;

function result(summary: string, structured: Structured, isError: boolean): CallToolResult {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

function more(nextCursor: unknown): string {
  return typeof nextCursor === 'string' ? ` More: call again with cursor "${nextCursor}".` : ' This is the last page.';
}

/** One or two sentences on `data`, by its shape (cli/bookstage/output/answer-data.ts tells the shapes apart). */
function summarize(data: unknown, idempotencyKey: string | undefined): string {
  if (isPending(data)) {
    return (
      `Pending: job ${data.job_id} is still working on it; nothing is lost. Call get_job with job_id "${data.job_id}" in a second or two` +
      (idempotencyKey ? `, or repeat this call with idempotency_key "${idempotencyKey}" (it never stages twice).` : '.')
    );
  }
  if (isDryRun(data)) {
    const what =
      data.outcome === 'staged'
        ? 'staging now would stage this plan'
        : data.outcome === 'noop'
          ? 'there is nothing to do'
          : 'the plan is blocked';
    return `Dry run: ${what} (plan_hash ${data.plan_hash ?? 'none'}); nothing was staged or stored. Call again without dry_run to stage it.`;
  }
  if (isStagingResult(data)) {
    if (data.outcome === 'staged') {
      return (
        `Staged operation ${data.staged_operation_id} (status ${data.status}, expires ${data.expires_at}). ` +
        'Nothing in the books changes until a person approves and applies it.'
      );
    }
    if (data.outcome === 'noop') return 'Nothing to do: the links already follow FIFO; nothing was staged.';
    return `Blocked: ${data.blockers.map((b) => `${b.code} (${(b.ids ?? []).join(', ')})`).join('; ')}. Nothing was staged.`;
  }
  if (isDuplicatesPage(data)) return `${data.groups.length} duplicate group(s) on this page.${more(data.next_cursor)}`;
  if (isStagedList(data)) {
    const items = data.items.map((i) => `${i.staged_operation_id} ${i.kind} ${i.status}`).join('; ');
    return `${data.items.length} staged operation(s)${items ? `: ${items}` : ''}.${more(data.next_cursor)}`;
  }
  if (isStagedOperation(data)) {
    return `Staged operation ${data.staged_operation_id}: ${data.kind}, status ${data.status}, created by ${data.created_by}, expires ${data.expires_at}.`;
  }
  return 'Done.';
}

function warningsLine(warnings: Array<{ code: string; message: string }>): string {
  return warnings.length ? ` Warnings: ${warnings.map((w) => `${w.code}: ${w.message}`).join(' ')}` : '';
}

/** The tool result of one API answer. */
export function answerResult(answer: Answer, idempotencyKey: string | undefined): CallToolResult {
  const env = answer.envelope;
  if (!env || typeof env !== 'object') {
    return {
      content: [
        {
          type: 'text',
          text: `The API answered HTTP ${answer.status} without a JSON envelope: ${answer.text.slice(0, 500)}`,
        },
      ],
      isError: true,
    };
  }
  if (!env.ok && env.error) {
    const error = env.error;
    const pointers = (error.errors ?? []).map((e) => ` ${e.pointer || '/'}: ${e.message}.`).join('');
    const details = Object.keys(error.details ?? {}).length ? ` Details: ${JSON.stringify(error.details)}.` : '';
    const retry = error.retryable ? 'retryable: the same call may succeed later' : 'not retryable';
    const again = error.retryable && idempotencyKey ? ` Retry with idempotency_key "${idempotencyKey}".` : '';
    return result(
      `Refused: ${error.code} (HTTP ${error.status}, ${retry}). ${error.message}${pointers}${details}${again}`,
      { ...error, request_id: env.request_id },
      true,
    );
  }
  const warnings = warningsOf(answer) ?? [];
  const data = (fieldOf(env, 'data') ?? {}) as Structured;
  return result(
    `${summarize(data, idempotencyKey)}${warningsLine(warnings)}`,
    { ...data, request_id: env.request_id, warnings },
    false,
  );
}

/** Arguments that do not match the tool's input schema: refused before any request, as the API would (400 validation_failed). */
export function argumentsRefused(errors: FieldError[]): CallToolResult {
  const structured = {
    code: 'validation_failed',
    status: 400,
    retryable: false,
    message: "The arguments do not match the tool's input schema.",
    details: {},
    errors,
  };
  return result(
    `Refused: validation_failed.${errors.map((e) => ` ${e.pointer || '/'}: ${e.message}.`).join('')}`,
    structured,
    true,
  );
}

/** The API did not answer, after the server's own retries. */
export function unreachable(message: string, idempotencyKey: string | undefined): CallToolResult {
  const again = idempotencyKey ? ` Retrying later with idempotency_key "${idempotencyKey}" never stages twice.` : '';
  return { content: [{ type: 'text', text: `The bookstage API did not answer (${message}).${again}` }], isError: true };
}
