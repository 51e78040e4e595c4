// The page's only way out: fetch to its own origin's /api/v1/cli/... with the
// token as a Bearer header (docs/reference/http-api.md §3). Every answer is an envelope
// (§4); a refusal is returned as it is, never hidden.
import type { Envelope } from '../shared/contract/envelope.js';
import { ROUTE_PATHS } from './route-paths.js';
import { storedToken } from './session.js';

export interface ApiError {
  code: string;
  status: number;
  message: string;
  details: Record<string, unknown>;
}

export type Answer<T> =
  { ok: true; status: number; data: T; location: string | null } | { ok: false; status: number; error: ApiError };

export async function api<T>(
  method: 'GET' | 'POST',
  path: string,
  body?: object,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const token = storedToken();
  const all: Record<string, string> = { accept: 'application/json', ...headers };
  if (token) all.authorization = `Bearer ${token}`;
  if (body !== undefined) all['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: all,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    return {
      ok: false,
      status: 0,
      error: { code: 'network', status: 0, message: 'The API could not be reached.', details: {} },
    };
  }
  let envelope: Envelope<T> | null = null;
  try {
    envelope = (await res.json()) as Envelope<T>;
  } catch {
    envelope = null;
  }
  if (envelope?.ok === true)
    return { ok: true, status: res.status, data: envelope.data, location: res.headers.get('location') };
  const error: ApiError =
    envelope?.ok === false
      ? envelope.error
      : {
          code: 'unexpected_answer',
          status: res.status,
          message: `The API answered HTTP ${res.status} without an envelope.`,
          details: {},
        };
  return { ok: false, status: res.status, error };
}

/** The path of an operation's route (ROUTE_PATHS) with each `{param}` filled, URI-encoded. */
export function pathOf(operation: string, params: Readonly<Record<string, string>> = {}): string {
  const template = ROUTE_PATHS[operation];
  if (template === undefined) throw new Error(`no route for operation ${operation}`);
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`route ${operation} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** A query string from the set members of `params`. */
export function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}
