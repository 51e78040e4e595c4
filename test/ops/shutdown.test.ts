// Graceful shutdown on SIGTERM (docs/operating/deploy.md "Shutdown"), on the real
// entry points as child processes: what is in flight finishes, then the
// process exits 0.
import { expect } from 'chai';
import { REVERSAL, request, reversePath, reversibleEntries, stagedCount } from './fixtures.js';
import { inProcessApi, opsEnv, startApiProcess, startWorkerProcess, stopAll, type Child } from './processes.js';

describe('graceful shutdown', function () {
  this.timeout(60_000);
  const children: Child[] = [];
  afterEach(async () => {
    await stopAll(children.splice(0));
  });

  it('SIGTERM to a worker while a job runs: the job completes, its answer reaches the client, and the worker exits 0', async () => {
    const env = await opsEnv({ BOOKSTAGE_TEST_FAULTS: 'stage:slow' });
    const api = await inProcessApi(env);
    try {
      const worker = await startWorkerProcess(env);
      children.push(worker);
      const { orgId, entries, token } = await reversibleEntries(1);
      const answer = request(api.baseUrl, 'POST', reversePath(entries[0]!), {
        token,
        body: REVERSAL,
        headers: { prefer: 'wait=30' },
      });
      await worker.waitFor((l) => l.msg === 'job started');
      worker.kill('SIGTERM');
      const reply = await answer;
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body.data).to.include({ outcome: 'staged' });
      expect(await worker.exited).to.deep.equal({ code: 0, signal: null });
      expect(worker.lines('job finished')).to.have.length(1);
      expect(worker.lines('worker stopped')).to.have.length(1);
      expect(await stagedCount(orgId)).to.equal(1);
    } finally {
      await api.close();
    }
  });

  it('a second SIGTERM while the worker waits for its job exits at once with code 1 (the job is left for another worker)', async () => {
    const env = await opsEnv({ BOOKSTAGE_TEST_FAULTS: 'stage:slow' });
    const api = await inProcessApi(env);
    try {
      const worker = await startWorkerProcess(env);
      children.push(worker);
      const { entries, token } = await reversibleEntries(1);
      const reply = await request(api.baseUrl, 'POST', reversePath(entries[0]!), {
        token,
        body: REVERSAL,
        headers: { prefer: 'wait=0' },
      });
      expect(reply.status).to.equal(202);
      await worker.waitFor((l) => l.msg === 'job started');
      worker.kill('SIGTERM');
      await worker.waitFor((l) => l.msg === 'worker shutting down');
      worker.kill('SIGTERM');
      expect(await worker.exited).to.deep.equal({ code: 1, signal: null });
      expect(worker.lines('worker shutdown forced by a second signal; exiting')).to.have.length(1);
      expect(worker.lines('job finished')).to.deep.equal([]);
    } finally {
      await api.close();
    }
  });

  it('SIGTERM to the API while a request waits for its job: no new connections, the request gets its answer, and the API exits 0', async () => {
    const env = await opsEnv({ BOOKSTAGE_TEST_FAULTS: 'stage:slow' });
    const worker = await startWorkerProcess(env);
    children.push(worker);
    const api = await startApiProcess(env);
    children.push(api);
    const { orgId, entries, token } = await reversibleEntries(1);
    const answer = request(api.baseUrl, 'POST', reversePath(entries[0]!), {
      token,
      body: REVERSAL,
      headers: { prefer: 'wait=30' },
    });
    await worker.waitFor((l) => l.msg === 'job started');
    api.kill('SIGTERM');
    await api.waitFor((l) => l.msg === 'api shutting down');
    // Stopped accepting: a new connection is refused (or, caught between accept and close, reset unanswered)
    // while the first request still waits.
    const late = await fetch(`${api.baseUrl}/healthz`).then(
      (r) => `answered ${r.status}`,
      (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
    );
    expect(late).to.be.oneOf(['ECONNREFUSED', 'ECONNRESET']);
    const reply = await answer;
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    expect(reply.body.data).to.include({ outcome: 'staged' });
    expect(await api.exited).to.deep.equal({ code: 0, signal: null });
    expect(await stagedCount(orgId)).to.equal(1);
    worker.kill('SIGTERM');
    expect(await worker.exited).to.deep.equal({ code: 0, signal: null });
  });
});
