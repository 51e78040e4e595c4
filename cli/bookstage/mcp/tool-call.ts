// One tool call: check the arguments against the tool's input schema, turn
// them into the route's request (path parameters into the path, the rest into
// the query of a read or the body of a POST, idempotency_key and wait_seconds
// into their headers, `dry_run: true` into `?dry_run=true`), send it with the CLI's HTTP client, and answer the
// tool result. A staging call without a key gets one per tool call, reused by
// the client's own retries on network errors and 503, so a retry never stages
// twice (docs/reference/http-api.md §6.2).
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { compile, type Validator } from '../../../shared/schemas/validator.js';
import { query } from '../call.js';
import type { Profile } from '../config.js';
import { NetworkError, send, type Request, type RetryPolicy } from '../http-client.js';
import type { ToolSpec } from './tool-catalog.js';
import { inputSchemaFor } from './tool-schemas.js';
import { answerResult, argumentsRefused, unreachable } from './tool-result.js';

type Args = Record<string, unknown>;

export interface BoundTool {
  spec: ToolSpec;
  inputSchema: Record<string, unknown>;
  validate: Validator<Args>;
}

export function bindTool(spec: ToolSpec): BoundTool {
  const inputSchema = inputSchemaFor(spec.route);
  return { spec, inputSchema, validate: compile<Args>(inputSchema) };
}

/** The HTTP request of a tool call whose arguments passed the input schema. */
export function requestFor(spec: ToolSpec, args: Args): Request {
  const { idempotency_key: key, wait_seconds: wait, dry_run: dryRun, ...fields } = args;
  const pathNames = Object.keys(spec.route.pathParams?.schema.properties ?? {});
  let path = spec.route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(fields[name])));
  for (const name of pathNames) delete fields[name];
  const request: Request = { method: spec.route.method === 'get' ? 'GET' : 'POST', path };
  if (spec.route.rawBody) {
    // The file is the body; every other argument is a query parameter (docs/guide/statement-import.md).
    const { content, content_base64: base64, ...params } = fields;
    request.rawBody =
      typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(String(base64), 'base64');
    request.path = path + query(params as Record<string, string | number | undefined>);
  } else if (request.method === 'GET') {
    path += query(fields as Record<string, string | number | undefined>);
    request.path = path;
  } else {
    request.body = fields;
  }
  // A dry run stores nothing and needs no key (docs/reference/http-api.md §6.6).
  if (dryRun === true) request.path += `${request.path.includes('?') ? '&' : '?'}dry_run=true`;
  if (spec.route.staging) {
    if (dryRun !== true) request.idempotencyKey = typeof key === 'string' ? key : `bookstage-mcp-${randomUUID()}`;
    if (typeof wait === 'number') request.waitSeconds = wait;
  }
  return request;
}

export async function callTool(
  tool: BoundTool,
  profile: Profile,
  args: Args,
  policy: RetryPolicy,
): Promise<CallToolResult> {
  const checked = tool.validate(args);
  if (!checked.ok) return argumentsRefused(checked.errors);
  const request = requestFor(tool.spec, { ...args });
  const key = request.idempotencyKey;
  const logged: RetryPolicy = {
    ...policy,
    onRetry: (attempt, reason, delay) =>
      policy.onRetry?.(attempt, key ? `${reason} (same Idempotency-Key ${key})` : reason, delay),
  };
  try {
    return answerResult(await send(profile, request, logged), key);
  } catch (err) {
    if (err instanceof NetworkError) return unreachable(err.message, key);
    throw err;
  }
}
