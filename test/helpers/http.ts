// A tiny client over fetch for the tests: every answer with its status,
// headers and parsed envelope, typed by the `data` the test expects.
import type { ErrorBody } from '../../shared/errors.js';
import type { Warning } from '../../shared/warnings.js';
import { stack } from './stack.js';

/**
 * An envelope as a test reads it: the fields of both arms (docs/reference/http-api.md
 * "The envelope"). A test asserts `status` or `ok` first; reading a field of the
 * other arm then fails the test at run time, which is what it should do.
 */
export interface AnswerBody<Data> {
  ok: boolean;
  api_version: string;
  operation: string | null;
  request_id: string;
  data: Data;
  warnings: Warning[];
  /** `errors` is there when the code is validation_failed. */
  error: Required<ErrorBody>;
}

export interface Answer<Data = unknown> {
  status: number;
  headers: Headers;
  body: AnswerBody<Data>;
}

/** `Data`: the `data` the test expects on success (test/helpers/answers.ts); unknown when it reads only errors. */
export async function call<Data = unknown>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Answer<Data>> {
  const s = await stack();
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${s.baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as AnswerBody<Data> };
}

/** GET a job until `until` holds (10 s at most): how a client follows a 202. */
export async function poll<Data = unknown>(
  jobPath: string,
  token: string,
  until: (a: Answer<Data>) => boolean,
  headers: Record<string, string> = {},
): Promise<Answer<Data>> {
  for (let i = 0; i < 100; i += 1) {
    const answer = await call<Data>('GET', jobPath, { token, headers });
    if (until(answer)) return answer;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobPath} did not finish`);
}
