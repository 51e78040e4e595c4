// An error envelope as a person reads it: the message, the code and whether
// a retry may help, each field problem with its pointer, and the request id
// to quote when asking for help.
import type { ErrorEnvelope } from '../../../shared/contract/envelope.js';
import type { Style } from './style.js';

export function renderError(style: Style, status: number, envelope: ErrorEnvelope): string {
  const error = envelope.error;
  let out = `${style.red('Error')}: ${error.message}\n`;
  out += `  code ${style.bold(error.code)} (HTTP ${status}, ${error.retryable ? 'retryable: the same call may succeed later' : 'not retryable'})\n`;
  for (const e of error.errors ?? []) out += `  ${e.pointer || '/'}: ${e.message}\n`;
  for (const [key, value] of Object.entries(error.details ?? {})) {
    out += `  ${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`;
  }
  out += style.dim(`  request id ${envelope.request_id}`) + '\n';
  return out;
}
