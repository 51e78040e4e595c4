// Load: 50 concurrent clients × 20 calls over every authenticated
// endpoint, for two organisations at once. No answer is a 5xx, every answer
// has X-Request-Id, and no answer ever carries the other organisation's ids.
// Latencies are printed (p50, p99), never asserted: speed belongs in bench/.
import { expect } from 'chai';
import { rawRequest } from './raw-request.js';
import { orgFixture, type OrgFixture } from './org-fixture.js';

const CLIENTS = 50;
const CALLS = 20;

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

/** The calls a client of `org` cycles through: every endpoint, its own org's ids. */
function calls(org: OrgFixture): Call[] {
  const staged = `/api/v1/cli/staged-operations/${org.operation}`;
  return [
    { method: 'GET', path: '/api/v1/cli/bookkeeping/inbox/duplicates?limit=5' },
    { method: 'GET', path: '/api/v1/cli/staged-operations?limit=5' },
    { method: 'GET', path: staged },
    { method: 'GET', path: `/api/v1/cli/jobs/${org.job}` },
    { method: 'POST', path: `/api/v1/cli/ledger/entries/${org.entries[0]}/reverse/stage`, body: {} },
    {
      method: 'POST',
      path: '/api/v1/cli/bank-matches/reconcile/stage',
      body: {
        bank_account_id: org.account,
        statement: { end_date: '2026-02-28', closing_balance_minor: 5_000, currency: 'EUR' },
        transaction_ids: [org.txn],
      },
    },
    {
      method: 'POST',
      path: '/api/v1/cli/bank-matches/ledger-link-repair/stage',
      body: { bank_account_id: org.account, counterparty_id: org.counterparty, as_of: '2026-02-28' },
    },
    { method: 'POST', path: `${staged}/approve`, body: {} },
    { method: 'POST', path: `${staged}/reject`, body: { note: 'load test' } },
    { method: 'POST', path: `${staged}/apply` },
  ];
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

describe('abuse: load', function () {
  this.timeout(180_000);

  it(`${CLIENTS} concurrent clients × ${CALLS} calls over every endpoint for two organisations: no 5xx, X-Request-Id always, no other org's ids`, async () => {
    const orgs = [await orgFixture(), await orgFixture()];
    const problems: string[] = [];
    const latencies: number[] = [];
    const statuses = new Map<number, number>();

    const client = async (i: number): Promise<void> => {
      const org = orgs[i % 2]!;
      const other = orgs[(i + 1) % 2]!;
      const token = i % 4 < 2 ? org.alice : org.bob;
      const list = calls(org);
      for (let n = 0; n < CALLS; n += 1) {
        const c = list[(i + n) % list.length]!;
        const body = c.body === undefined ? undefined : JSON.stringify(c.body);
        const headers: Record<string, string> = {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        };
        const started = performance.now();
        const res = await rawRequest({ method: c.method, path: c.path, headers, body });
        latencies.push(performance.now() - started);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const where = `client ${i} ${c.method} ${c.path}: ${res.status}`;
        if (res.status >= 500) problems.push(`${where} ${res.text.slice(0, 200)}`);
        if (typeof res.headers['x-request-id'] !== 'string' || res.headers['x-request-id'] === '')
          problems.push(`${where} without X-Request-Id`);
        if (res.text.includes(other.uid)) problems.push(`${where} carries an id of the other org`);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));

    const sorted = [...latencies].sort((x, y) => x - y);
    console.log(
      `      load: ${sorted.length} calls; p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    expect(sorted.length).to.equal(CLIENTS * CALLS);
    expect(problems, problems.slice(0, 20).join('\n')).to.deep.equal([]);
  });
});
