// What a statement import leaves in Redis (docs/operating/reliability.md "What
// Redis holds"), on the real stack: the job carries the id of the file stored
// in the store, never the file, and a dry run's big answer is stored, not kept
// as the job's return value. Redis is shared by every organisation and runs
// with noeviction, so repeated big imports and dry runs must not grow it by
// their files and answers.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';
import { actors, docs } from '../helpers/staged.js';
import { Queue, QueueEvents } from 'bullmq';
import { DEFAULT_CSV_MAPPING } from '../../shared/kinds/statement-import/csv.js';
import { CARRIED_ANSWER_MAX_CHARS, STAGE_QUEUE, type StageJobReturn } from '../../shared/queue/stage-jobs.js';
import { newJobId } from '../../shared/storage/idempotency-keys.js';

const CSV_QUERY =
  '?format=csv&date_column=date&amount_column=amount&counterparty_column=name&remittance_column=text&reference_column=ref';

/** A CSV of `rows` payments with long texts (about 1.7 MB at 5,000 rows); `salt` makes each file differ. */
function bigCsv(rows: number, salt: string): string {
  const lines = ['date,amount,name,text,ref'];
  for (let i = 0; i < rows; i += 1) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    lines.push(
      `2026-10-${day},${(i % 900) + 1}.${String(i % 100).padStart(2, '0')},Payer ${i % 50},${salt} invoice ${i} ${'x'.repeat(300)},R${salt}${i}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** POST the file; a 202 (the wait ran out on a busy machine) is polled at its job until it answers. Its final status. */
async function post(token: string, accountId: string, body: string, query: string): Promise<number> {
  const s = await stack();
  const res = await fetch(`${s.baseUrl}/api/v1/cli/bank-accounts/${accountId}/statements/import/stage${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body,
  });
  let status = res.status;
  let answer = (await res.json()) as { data?: { job_id?: string } };
  while (status === 202) {
    await new Promise((r) => setTimeout(r, 500));
    const polled = await fetch(`${s.baseUrl}/api/v1/cli/jobs/${answer.data!.job_id!}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    status = polled.status;
    if (status === 202) answer = (await polled.json()) as typeof answer;
    else await polled.text();
  }
  return status;
}

function usedMemory(info: string): number {
  return Number(/^used_memory:(\d+)$/m.exec(info)![1]);
}

/** The staging jobs of an organisation in Redis, with the sizes of their data and return value. */
async function jobsOf(
  redis: Redis,
  prefix: string,
  orgId: string,
): Promise<Array<{ key: string; data: number; returnvalue: number }>> {
  const out: Array<{ key: string; data: number; returnvalue: number }> = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:stage:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      if ((await redis.type(key)) !== 'hash') continue;
      const data = await redis.hget(key, 'data');
      if (data === null || !data.includes(`"org_id":"${orgId}"`)) continue;
      out.push({ key, data: data.length, returnvalue: await redis.hstrlen(key, 'returnvalue') });
    }
  } while (cursor !== '0');
  return out;
}

describe('Redis under repeated big statement imports and dry runs', function () {
  this.timeout(600_000);

  it('keeps neither the files nor the big answers: job data and return values stay small, used_memory does not grow by them', async () => {
    const s = await stack();
    const books = new Books();
    const accounts = [books.account(), books.account()];
    await s.load(books.file);
    const who = await actors(books.orgId);
    const redis = new Redis(s.config.redisUrl);
    try {
      const files = ['a', 'b', 'c', 'd'].map((salt) => bigCsv(5_000, salt));
      const fileChars = files[0]!.length;
      expect(fileChars).to.be.greaterThan(1_500_000);
      const before = usedMemory(await redis.info('memory'));
      // Three dry runs (each answer lists 5,000 new transactions: megabytes of JSON) and two stagings.
      for (const file of files.slice(0, 3))
        expect(await post(who.alice, accounts[0]!, file, `${CSV_QUERY}&dry_run=true`)).to.equal(200);
      expect(await post(who.alice, accounts[0]!, files[3]!, CSV_QUERY)).to.equal(201);
      expect(await post(who.alice, accounts[1]!, files[0]!, CSV_QUERY)).to.equal(201);
      const after = usedMemory(await redis.info('memory'));

      const jobs = await jobsOf(redis, s.config.queuePrefix, books.orgId);
      expect(jobs).to.have.length(5);
      for (const job of jobs) {
        expect(job.data, `${job.key} data`).to.be.below(4096);
        expect(job.returnvalue, `${job.key} return value`).to.be.at.most(CARRIED_ANSWER_MAX_CHARS + 1024);
      }
      // Five files of 1.7 MB (2.3 MB as base64) and three answers of megabytes would add well over 10 MB; one file's size is the bound.
      expect(after - before, 'used_memory growth').to.be.below(fileChars);
      // The files wait in the store instead, named by their SHA-256: four distinct files, one upload each.
      const uploads = (await docs('statement_uploads', { org_id: books.orgId })).filter((d) => d._id === d.upload);
      expect(uploads).to.have.length(4);
    } finally {
      redis.disconnect();
    }
  });

  it('a job queued in the form before uploads, with the file in it, is still read by the worker (a rolling upgrade)', async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    await s.load(books.file);
    const connection = { url: s.config.redisUrl };
    const queue = new Queue(STAGE_QUEUE, { connection, prefix: s.config.queuePrefix });
    const events = new QueueEvents(STAGE_QUEUE, { connection, prefix: s.config.queuePrefix });
    try {
      await events.waitUntilReady();
      const file = 'date,amount,name\n2026-10-01,12.50,Alpha\n2026-10-02,-3.00,Beta\n';
      const job = await queue.add(
        'statement_import.stage',
        {
          operation: 'statement_import.stage',
          request_id: 'req_legacy_upload',
          org_id: books.orgId,
          actor: 'alice',
          requested_at: new Date().toISOString(),
          idempotency_key: null,
          may_review: false,
          input: {
            bank_account_id: account,
            format: 'csv',
            encoding: null,
            csv: { ...DEFAULT_CSV_MAPPING, date_column: 'date', amount_column: 'amount', counterparty_column: 'name' },
            content_base64: Buffer.from(file).toString('base64'),
          },
        },
        { jobId: newJobId() },
      );
      const done = (await job.waitUntilFinished(events, 60_000)) as StageJobReturn;
      expect(done.outcome).to.equal('staged');
      const [op] = await docs('staged_operations', { org_id: books.orgId });
      expect((op!.input as Record<string, unknown>).file_bytes).to.equal(Buffer.byteLength(file));
      expect(op!.input).to.not.have.property('content_base64');
    } finally {
      await events.close();
      await queue.close();
    }
  });
});
