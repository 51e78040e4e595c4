// A stalled Redis (`kill -STOP`: connections stay open, nothing answers;
// docs/operating/reliability.md "Redis stalls"). An API of this
// test's own on a Redis of its own (test/helpers/own-redis-api.ts); no
// worker serves its queue prefix, so a job that reached Redis stays there to
// be seen.
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { STAGE_QUEUE } from '../../shared/queue/stage-jobs.js';
import { Books } from '../helpers/books.js';
import { apiWithOwnRedis, type OwnRedisApi } from '../helpers/own-redis-api.js';
import { stack } from '../helpers/stack.js';

interface Reply {
  status: number;
  ms: number;
  headers: Headers;
  body: {
    data?: { job_id?: string };
    error?: { code: string; retryable: boolean; message: string; details: Record<string, unknown> };
  };
}

async function send(
  port: number,
  method: string,
  path: string,
  token: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Reply> {
  const started = Date.now();
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    signal: AbortSignal.timeout(15_000),
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.status,
    ms: Date.now() - started,
    headers: res.headers,
    body: (await res.json()) as Reply['body'],
  };
}

describe('faults: a stalled Redis (kill -STOP)', function () {
  this.timeout(90_000);
  let own: OwnRedisApi | null = null;
  const prefix = `stall-${Date.now().toString(36)}`;
  afterEach(async () => {
    await own?.close();
    own = null;
  });

  it('approve whose enqueue got no answer: 503 outcome_unknown (retryable, naming the job), not "nothing was done"; the job did reach Redis, and the same request retried converges on it', async () => {
    const s = await stack();
    own = await apiWithOwnRedis(prefix);
    const books = new Books();
    await s.load(books.file);
    const token = await s.token(books.orgId, ['staged:read', 'staged:approve'], 'reviewer');
    const path = '/api/v1/cli/staged-operations/stg_stalled/approve';
    const key = { 'idempotency-key': `stall-approve-${books.uid}`, prefer: 'wait=0' };
    // Redis answers before the stall: the connection is up and ready.
    expect(
      (await send(own.port, 'POST', path, token, { 'idempotency-key': `warm-${books.uid}`, prefer: 'wait=0' }, {}))
        .status,
    ).to.equal(202);

    own.pauseRedis();
    const during = await send(own.port, 'POST', path, token, key, {});
    expect(during.status, JSON.stringify(during.body)).to.equal(503);
    expect(during.body.error).to.include({ code: 'outcome_unknown', retryable: true });
    expect(during.body.error!.message).to.not.match(/nothing was done/);
    expect(during.headers.get('retry-after')).to.equal('1');
    expect(during.ms).to.be.below(3_000);
    const jobId = during.body.error!.details.job_id as string;
    expect(jobId).to.match(/^job_/);

    own.resumeRedis();
    const queue = new Queue(STAGE_QUEUE, { connection: { host: '127.0.0.1', port: own.redisPort }, prefix });
    try {
      // The add was sent before the stall's answer was lost: Redis ran it once resumed.
      let job = await queue.getJob(jobId);
      for (let i = 0; i < 20 && !job; i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        job = await queue.getJob(jobId);
      }
      expect(job, 'the job reached Redis').to.not.equal(undefined);
      const retried = await send(own.port, 'POST', path, token, key, {});
      expect(retried.status).to.equal(202);
      expect(retried.body.data?.job_id).to.equal(jobId);
      expect(await queue.count()).to.equal(2);
    } finally {
      await queue.close();
    }
  });

  it('the duplicate overview with none stored: 503 within the 2 s dependency bound, not a 60 s hang or a 500', async () => {
    const s = await stack();
    own = await apiWithOwnRedis(prefix);
    const books = new Books();
    await s.load(books.file);
    const token = await s.token(books.orgId, ['inbox:read'], 'reader');
    own.pauseRedis();
    const during = await send(own.port, 'GET', '/api/v1/cli/bookkeeping/inbox/duplicates', token);
    expect(during.status, JSON.stringify(during.body)).to.equal(503);
    expect(during.body.error).to.include({ code: 'dependency_unavailable', retryable: true });
    expect(during.body.error!.details).to.deep.equal({ dependency: 'Redis' });
    expect(during.ms).to.be.below(3_000);
  });
});
