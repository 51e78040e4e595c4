// The bench's HTTP client: one call, its status and wall time.
//
// why node:http and not fetch: the bench shares the 2 cores with the service
// it measures, and fetch (undici's WHATWG streams and headers) made the bench
// process about a fifth of the machine in the mixed load. A keep-alive agent
// with plain requests does the same calls for less; whatever the client
// spends is taken from the API and the worker (bench/README.md, what is measured).
import { pathOf } from '../../shared/contract/route-paths.js';
import { Agent, request } from 'node:http';

export interface Call {
  status: number;
  ms: number;
  body: unknown;
}

/**
 * why `timeout`: with it, the agent drops an idle socket a second before the
 * time-out the server announces (`Keep-Alive: timeout=5`, Node's default),
 * as Node's own global agent does; without it the agent kept idle sockets
 * for ever, and a call sent on one just as the API closed it failed with
 * "socket hang up" (one mixed-load run in six to fifteen died of it,
 * between its rounds). On a socket in use the time-out only emits an event nobody
 * listens to: a call that waits longer for its job is not cut.
 */
const agent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 5_000 });

export function call(
  baseUrl: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<Call> {
  const url = new URL(`${baseUrl}${path}`);
  if (url.protocol !== 'http:') throw new Error(`the bench calls the service over plain HTTP, not ${url.protocol}`);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, ...extraHeaders };
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = payload.length;
  }
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const ms = performance.now() - start;
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode ?? 0, ms, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

// The paths the sections call, from the route table (shared/contract/route-paths.ts).
export const reversePath = (entryId: string): string => pathOf('ledger_reversal.stage', { entry_id: entryId });
export const repairPath = pathOf('ledger_link_repair.stage');
export const duplicatesPath = pathOf('inbox_duplicates.list');
export const entryPath = (entryId: string): string => pathOf('ledger_entries.show', { entry_id: entryId });
export const transactionsPagePath = `${pathOf('bank_transactions.list')}?limit=50`;

/** Throw unless the staging call answered a staged operation. */
export function expectStaged(c: Call, what: string): void {
  const outcome = (c.body as { data?: { outcome?: string } } | null)?.data?.outcome;
  if (c.status >= 300 || outcome !== 'staged')
    throw new Error(`${what}: HTTP ${c.status} ${JSON.stringify(c.body).slice(0, 300)}`);
}
