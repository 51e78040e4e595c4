// A tiny client over fetch for the tests: every answer with its status,
// headers and parsed envelope.
import { stack } from './stack.js';

export interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- envelopes are asserted field by field
}

export async function call(method: string, path: string, options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
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
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** GET a job until `until` holds (10 s at most): how a client follows a 202. */
export async function poll(jobPath: string, token: string, until: (a: Answer) => boolean): Promise<Answer> {
  for (let i = 0; i < 100; i += 1) {
    const answer = await call('GET', jobPath, { token });
    if (until(answer)) return answer;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobPath} did not finish`);
}
