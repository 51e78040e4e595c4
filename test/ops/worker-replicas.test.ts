// Two worker processes on one queue (docs/operating/scaling.md): they share the load,
// and when one is killed mid-job the other finishes that job, once.
import { expect } from 'chai';
import { REVERSAL, request, reversePath, reversibleEntries, stagedCount, untilAnswered } from './fixtures.js';
import { inProcessApi, opsEnv, startWorkerProcess, stopAll, type Child } from './processes.js';

describe('two worker replicas', function () {
  this.timeout(90_000);
  const children: Child[] = [];
  let api: Awaited<ReturnType<typeof inProcessApi>>;
  let workers: Array<Child & { metricsPort: number }>;

  before(async () => {
    // Each job takes 3 s and each worker runs at most two at once: four jobs at once cannot all go to one worker.
    const env = await opsEnv({ BOOKSTAGE_TEST_FAULTS: 'stage:slow', WORKER_CONCURRENCY: '2' });
    api = await inProcessApi(env);
    workers = await Promise.all([startWorkerProcess(env), startWorkerProcess(env)]);
    children.push(...workers);
  });
  after(async () => {
    await stopAll(children);
    await api.close();
  });

  const finishedBy = (worker: Child, jobIds: string[]): string[] =>
    worker
      .lines('job finished')
      .map((l) => String(l.job_id))
      .filter((id) => jobIds.includes(id));
  // A worker's log lines reach this process through a pipe, and may arrive after the HTTP answer does.
  const finishedLine = (worker: Child, jobId: string) =>
    worker.waitFor((l) => l.msg === 'job finished' && l.job_id === jobId, 10_000);

  it('share the queue under load: both process jobs, and every job is answered once', async () => {
    const { orgId, entries, token } = await reversibleEntries(4);
    const replies = await Promise.all(
      entries.map((e) =>
        request(api.baseUrl, 'POST', reversePath(e), { token, body: REVERSAL, headers: { prefer: 'wait=0' } }),
      ),
    );
    expect(replies.map((r) => r.status)).to.deep.equal([202, 202, 202, 202]);
    const jobIds = replies.map((r) => String(r.body.data!.job_id));
    const answers = await Promise.all(jobIds.map((id) => untilAnswered(api.baseUrl, id, token)));
    expect(answers.map((a) => a.status)).to.deep.equal([201, 201, 201, 201]);
    await Promise.all(jobIds.map((id) => Promise.any(workers.map((w) => finishedLine(w, id)))));
    const [a, b] = workers.map((w) => finishedBy(w, jobIds));
    expect(a!.length, 'first worker').to.be.greaterThan(0);
    expect(b!.length, 'second worker').to.be.greaterThan(0);
    expect([...a!, ...b!].sort()).to.deep.equal([...jobIds].sort());
    expect(await stagedCount(orgId)).to.equal(4);
  });

  it('SIGKILL to the worker running a job: the other worker finishes it, and there is one staged operation', async () => {
    const { orgId, entries, token } = await reversibleEntries(1);
    const reply = await request(api.baseUrl, 'POST', reversePath(entries[0]!), {
      token,
      body: REVERSAL,
      headers: { prefer: 'wait=0' },
    });
    expect(reply.status).to.equal(202);
    const jobId = String(reply.body.data!.job_id);
    const started = (w: Child): Promise<Child> =>
      w.waitFor((l) => l.msg === 'job started' && l.job_id === jobId).then(() => w);
    const victim = await Promise.race(workers.map(started));
    const survivor = workers.find((w) => w !== victim)!;
    victim.kill('SIGKILL');
    expect((await victim.exited).signal).to.equal('SIGKILL');
    // Taken over once the killed worker's lock lapses (WORKER_LOCK_DURATION_MS, 3 s here).
    const answer = await untilAnswered(api.baseUrl, jobId, token);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    await finishedLine(survivor, jobId);
    expect(finishedBy(survivor, [jobId])).to.deep.equal([jobId]);
    expect(finishedBy(victim, [jobId])).to.deep.equal([]);
    expect(await stagedCount(orgId)).to.equal(1);
  });
});
