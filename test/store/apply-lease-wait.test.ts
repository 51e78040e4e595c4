// A job that waits for another job's apply lease (worker/operation/apply-journal-runner.ts,
// docs/design/staged-lifecycle.md "Crash safety") polls the operation's status
// alone: the whole operation (megabytes for a big repair: its plan, context and
// journal) is read once at the start and once when it is final.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { createLogger } from '../../shared/logger.js';
import { collections } from '../../shared/storage/collections.js';
import { encodeOperation } from '../../shared/storage/staged-operation-codec.js';
import { finishJournal } from '../../worker/operation/apply-journal-runner.js';
import type { JobContext } from '../../worker/job-context.js';
import { applyingOperation } from '../helpers/applying-operation.js';
import { stack } from '../helpers/stack.js';

describe("waiting for another job's apply lease", function () {
  this.timeout(60_000);

  it('reads the status alone while it waits, and the whole operation again once it is final', async () => {
    const s = await stack();
    const orgId = `org_${randomBytes(5).toString('hex')}`;
    const id = `stg_wait_${randomBytes(5).toString('hex')}`;
    const now = new Date();
    // Held by another job for the next hour: this one can only wait.
    const op = applyingOperation(id, orgId, 'job-holder', new Date(now.getTime() + 3_600_000).toISOString());
    await collections(s.db).stagedOperations.insertOne(encodeOperation(op));
    const client = new MongoClient(process.env.MONGO_URL!, { monitorCommands: true });
    await client.connect();
    try {
      const reads = { whole: 0, status: 0 };
      client.on('commandStarted', (e: CommandStartedEvent) => {
        if (e.commandName !== 'find' || e.command.find !== 'staged_operations') return;
        const fields = Object.keys((e.command.projection as Record<string, unknown> | undefined) ?? {})
          .sort()
          .join(',');
        if (fields === 'org_id,status') reads.status += 1;
        else reads.whole += 1;
      });
      const ctx: JobContext = {
        db: client.db(s.db.databaseName),
        log: createLogger('worker', 'silent'),
        jobId: 'job-waiter',
        now,
        data: {
          operation: 'staged_operations.apply',
          org_id: orgId,
          actor: 'bob',
          request_id: 'req_wait',
          requested_at: now.toISOString(),
          idempotency_key: null,
          input: { staged_operation_id: id },
        } as unknown as JobContext['data'],
        rerun: false,
        settings: { stagedTtlMs: 3_600_000 },
        writes: [],
      };
      const waiting = finishJournal(ctx, id, 20_000);
      // The holder ends the apply a while later.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await collections(s.db).stagedOperations.updateOne({ _id: id }, { $set: { status: 'applied' } });
      const ended = await waiting;
      expect(ended.status).to.equal('applied');
      expect(reads.whole, 'whole reads: the first and the final one').to.equal(2);
      expect(reads.status, 'status reads while waiting').to.be.greaterThan(2);
    } finally {
      await client.close();
    }
  });
});
