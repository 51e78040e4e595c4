// The one place an answer becomes HTTP (docs/reference/http-api.md, envelope and error
// codes): a job's StageAnswer, a read's data, a pending job or an AppError
// turns into status, headers and envelope here and nowhere else. Statuses of
// refusals come from the error table (shared/errors.ts).
import type { Response } from 'express';
import { errorEnvelope, successEnvelope, type Envelope } from '../shared/contract/envelope.js';
import { AppError } from '../shared/errors.js';
import type { StageAnswer } from '../shared/queue/stage-jobs.js';
import type { Warning } from '../shared/warnings.js';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: Envelope;
}

export const stagedOperationPath = (id: string): string => `/api/v1/cli/staged-operations/${id}`;
export const jobPath = (id: string): string => `/api/v1/cli/jobs/${id}`;

/** A finished job's answer as the original request's envelope: a replay or a poll answers the same body, byte for byte. */
export function stageAnswerToHttp(answer: StageAnswer, requestId: string): HttpAnswer {
  switch (answer.outcome) {
    case 'refused':
      return errorToHttp(answer.operation, requestId, new AppError(answer.code, { details: answer.details }));
    case 'staged':
      return {
        // 201 for a new operation; 200 for the very same plan already pending.
        status: answer.created ? 201 : 200,
        headers: { Location: stagedOperationPath(answer.staged_operation_id) },
        body: successEnvelope(answer.operation, requestId, answer.data, answer.warnings),
      };
    case 'noop':
    case 'blocked':
    case 'done':
    case 'dry_run':
      return dataToHttp(answer.operation, requestId, answer.data, answer.warnings);
  }
}

/** A read's (or any synchronous) success. */
export function dataToHttp(
  operation: string | null,
  requestId: string,
  data: unknown,
  warnings: Warning[] = [],
): HttpAnswer {
  return { status: 200, headers: {}, body: successEnvelope(operation, requestId, data, warnings) };
}

/** A job that outlived the wait: where to fetch its answer, and when to ask again. */
export function pendingToHttp(operation: string, requestId: string, jobId: string): HttpAnswer {
  return {
    status: 202,
    headers: { Location: jobPath(jobId), 'Retry-After': '1' },
    body: successEnvelope(operation, requestId, { outcome: 'pending', job_id: jobId }),
  };
}

export function errorToHttp(operation: string | null, requestId: string, error: AppError): HttpAnswer {
  // A service that is briefly unavailable says when to come back.
  const headers: Record<string, string> = error.status === 503 ? { 'Retry-After': '1' } : {};
  return { status: error.status, headers, body: errorEnvelope(operation, requestId, error.toBody()) };
}

export function send(res: Response, answer: HttpAnswer): void {
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.status(answer.status).json(answer.body);
}
