// Per-token rate limit (docs/reference/http-api.md §5) and the body limit.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';
import { request } from './fixtures.js';
import { inProcessApi, opsEnv } from './processes.js';

describe('limits', function () {
  this.timeout(60_000);

  it('rate limit: 429 rate_limited with Retry-After and RateLimit-* after RATE_LIMIT_REQUESTS, per token; health, readiness and metrics stay open', async () => {
    const api = await inProcessApi(await opsEnv({ RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_S: '60' }));
    try {
      const books = new Books();
      const s = await stack();
      await s.load(books.file);
      const token = await s.token(books.orgId, ['staged:read']);
      const list = '/api/v1/cli/staged-operations';
      const allowed = [];
      for (let i = 0; i < 3; i += 1) allowed.push(await request(api.baseUrl, 'GET', list, { token }));
      expect(allowed.map((r) => r.status)).to.deep.equal([200, 200, 200]);
      expect(allowed.map((r) => r.headers.get('ratelimit-remaining'))).to.deep.equal(['2', '1', '0']);
      expect(allowed[0]!.headers.get('ratelimit-limit')).to.equal('3');
      expect(allowed[0]!.headers.get('ratelimit-policy')).to.equal('3;w=60');

      const limited = await request(api.baseUrl, 'GET', list, { token });
      expect(limited.status).to.equal(429);
      expect(limited.body).to.include({ ok: false, request_id: limited.headers.get('x-request-id') });
      expect(limited.body.error).to.include({ code: 'rate_limited', status: 429, retryable: true });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).to.be.within(1, 60);
      expect(limited.body.error!.details).to.deep.equal({
        limit: 3,
        window_seconds: 60,
        retry_after_seconds: retryAfter,
      });
      expect(limited.headers.get('ratelimit-remaining')).to.equal('0');
      expect(Number(limited.headers.get('ratelimit-reset'))).to.be.within(1, 60);

      // Exempt paths answer even with the limited token; another token has its own count.
      for (const path of ['/healthz', '/readyz', '/metrics']) {
        expect((await request(api.baseUrl, 'GET', path, { token })).status, path).to.equal(200);
      }
      const other = await s.token(books.orgId, ['staged:read'], 'bob');
      expect((await request(api.baseUrl, 'GET', list, { token: other })).status).to.equal(200);
    } finally {
      await api.close();
    }
  });

  it('unknown bearer tokens: counted per client address before the store read, no Redis key each; past RATE_LIMIT_AUTH_FAILURES 429, while a token already in use goes on', async () => {
    const api = await inProcessApi(
      await opsEnv({ RATE_LIMIT_REQUESTS: '1000', RATE_LIMIT_AUTH_FAILURES: '3', RATE_LIMIT_WINDOW_S: '60' }),
    );
    const redis = new Redis(api.config.redisUrl);
    try {
      const books = new Books();
      const s = await stack();
      await s.load(books.file);
      const token = await s.token(books.orgId, ['staged:read']);
      const list = '/api/v1/cli/staged-operations';
      expect((await request(api.baseUrl, 'GET', list, { token })).status).to.equal(200);
      const keysBefore = await redis.keys(`${api.config.queuePrefix}:rate-limit*`);

      const made = (i: number): string => `bst_made-up-${books.uid}-${i}`;
      const answers = [];
      for (let i = 0; i < 5; i += 1) answers.push(await request(api.baseUrl, 'GET', list, { token: made(i) }));
      expect(answers.map((a) => a.status)).to.deep.equal([401, 401, 401, 429, 429]);
      expect(answers[3]!.body.error).to.include({ code: 'rate_limited', retryable: true });
      expect(answers[3]!.body.error!.details).to.include({ limit: 3, window_seconds: 60 });
      expect(Number(answers[3]!.headers.get('retry-after'))).to.be.within(1, 60);
      // No count in Redis for a token that does not exist.
      expect(await redis.keys(`${api.config.queuePrefix}:rate-limit*`)).to.have.members(keysBefore);
      // The valid token this process knows still works from the same address.
      expect((await request(api.baseUrl, 'GET', list, { token })).status).to.equal(200);
    } finally {
      redis.disconnect();
      await api.close();
    }
  });

  it('a 2 MB body: 413 payload_too_large in the envelope, with the request id', async () => {
    const books = new Books();
    const entry = books.invoice(1_000);
    const s = await stack();
    await s.load(books.file);
    const token = await s.token(books.orgId, ['ledger:stage']);
    const res = await fetch(`${s.baseUrl}/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': 'ops-2mb-body' },
      body: JSON.stringify({ reversal_date: '2026-03-01', reason: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(res.status).to.equal(413);
    expect(res.headers.get('x-request-id')).to.equal('ops-2mb-body');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).to.deep.include({ ok: false, api_version: 'v1', request_id: 'ops-2mb-body' });
    expect(body.error).to.deep.include({
      code: 'payload_too_large',
      status: 413,
      retryable: false,
      details: { limit_bytes: 1024 * 1024 },
    });
    expect(await s.db.collection('staged_operations').countDocuments({ org_id: books.orgId })).to.equal(0);
  });
});
