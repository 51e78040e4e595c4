// The CLI envelope (docs/reference/http-api.md §4): every response with a body is one of these.
import type { ErrorBody } from '../errors.js';
import type { Warning } from '../warnings.js';

export type { Warning };

export const API_VERSION = 'v1';

export interface SuccessEnvelope<T = unknown> {
  ok: true;
  api_version: typeof API_VERSION;
  operation: string | null;
  request_id: string;
  data: T;
  warnings: Warning[];
}

export interface ErrorEnvelope {
  ok: false;
  api_version: typeof API_VERSION;
  operation: string | null;
  request_id: string;
  error: ErrorBody;
}

export type Envelope<T = unknown> = SuccessEnvelope<T> | ErrorEnvelope;

export function successEnvelope<T>(
  operation: string | null,
  requestId: string,
  data: T,
  warnings: Warning[] = [],
): SuccessEnvelope<T> {
  return { ok: true, api_version: API_VERSION, operation, request_id: requestId, data, warnings };
}

export function errorEnvelope(operation: string | null, requestId: string, error: ErrorBody): ErrorEnvelope {
  return { ok: false, api_version: API_VERSION, operation, request_id: requestId, error };
}
