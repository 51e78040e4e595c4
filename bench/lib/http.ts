// The bench's HTTP client: one call, its status and wall time.

export interface Call { status: number; ms: number; body: unknown }

export async function call(baseUrl: string, token: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Call> {
  const start = performance.now();
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - start;
  let parsed: unknown = null;
  try { parsed = JSON.parse(text); } catch { parsed = text; }
  return { status: res.status, ms, body: parsed };
}

export const reversePath = (entryId: string): string => `/api/v1/cli/ledger/entries/${encodeURIComponent(entryId)}/reverse/stage`;
export const repairPath = '/api/v1/cli/bank-matches/ledger-link-repair/stage';
export const duplicatesPath = '/api/v1/cli/bookkeeping/inbox/duplicates';
export const entryPath = (entryId: string): string => `/api/v1/cli/ledger/entries/${encodeURIComponent(entryId)}`;
export const transactionsPagePath = '/api/v1/cli/bank-transactions?limit=50';

/** Throw unless the staging call answered a staged operation. */
export function expectStaged(c: Call, what: string): void {
  const outcome = (c.body as { data?: { outcome?: string } } | null)?.data?.outcome;
  if (c.status >= 300 || outcome !== 'staged') throw new Error(`${what}: HTTP ${c.status} ${JSON.stringify(c.body).slice(0, 300)}`);
}
