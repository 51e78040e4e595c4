// Requests Node's HTTP parser refuses before Express sees them (headers over
// the 16 KB limit, a broken request line): by default Node answers a bare 431
// or 400 with no body and no X-Request-Id. This answers them as every other
// refusal, with the envelope and a fresh request id (docs/reference/http-api.md §4–§5).
import { randomUUID } from 'node:crypto';
import { maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorEnvelope } from '../../shared/contract/envelope.js';
import { AppError } from '../../shared/errors.js';

export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // As Node's own handler: nothing to answer on a dead socket or after an answer has begun.
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || answering) {
    socket.destroy();
    return;
  }
  if (!err.code?.startsWith('HPE_')) {
    // A request that timed out (ERR_HTTP_REQUEST_TIMEOUT) gets Node's own bare 408; anything else is closed.
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    else socket.destroy();
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('request_header_too_large', { details: { limit_bytes: maxHeaderSize } })
      : new AppError('malformed_request', { details: { reason: err.code ?? 'parse_error' } });
  const requestId = randomUUID();
  const body = JSON.stringify(errorEnvelope(null, requestId, error.toBody()));
  const reason = error.status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
