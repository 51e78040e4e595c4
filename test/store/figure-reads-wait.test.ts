// A read of kept figures waits for the worker's refresh round under way
// before it freshens them (worker/read-processor.ts, worker/figures-refresher.ts;
// docs/reference/book-reads.md "Kept figures"), on the real store: the
// counterparty list and the trial balance wait, other reads do not.
import { expect } from 'chai';
import type { Job } from 'bullmq';
import { pino } from 'pino';
import type { ReadJobData, ReadJobResult, ReadOperation } from '../../shared/queue/read-jobs.js';
import { createReadProcessor } from '../../worker/read-processor.js';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';

describe('figure reads: they wait for the refresh round under way', function () {
  this.timeout(60_000);

  async function loaded() {
    const s = await stack();
    const books = new Books();
    const main = books.account({ opening_balance_minor: 10_000 });
    const e = books.invoice(2_500);
    const t = books.txn(main, 2_500, { booking_date: '2026-02-03' });
    books.link(t, e, 2_500);
    await s.load(books.file);
    return { db: s.db, orgId: books.orgId, main, e };
  }

  /** A refresher whose round under way ends when the test says; which organisations a read asked about. */
  function heldRound() {
    let end: () => void = () => {};
    const round = new Promise<void>((resolve) => (end = resolve));
    const asked: string[] = [];
    return {
      figures: {
        settled: (orgId: string) => {
          asked.push(orgId);
          return round;
        },
      },
      asked,
      end: () => end(),
    };
  }

  function job<Op extends ReadOperation>(operation: Op, orgId: string, input: ReadJobData<Op>['input']) {
    const data: ReadJobData<Op> = {
      operation,
      request_id: 'req_wait',
      org_id: orgId,
      actor: 'alice',
      deadline_at: new Date(Date.now() + 60_000).toISOString(),
      input,
    };
    return { id: 'job_wait', data, attemptsMade: 0 } as unknown as Job<ReadJobData, ReadJobResult>;
  }

  /** Whether `p` ends within `ms` (the store answers a read of these books in far less). */
  function endsWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    return Promise.race([p.then(() => true), late]).finally(() => clearTimeout(timer));
  }

  for (const [operation, input] of [
    ['counterparties.list', (main: string) => ({ bank_account_id: main, currency: 'EUR', after: null, limit: 50 })],
    ['ledger.trial_balance', () => ({ as_of: '2026-02-28' })],
  ] as const) {
    it(`${operation} answers only once the round under way has ended`, async () => {
      const { db, orgId, main } = await loaded();
      const held = heldRound();
      const process = createReadProcessor(db, pino({ level: 'silent' }), held.figures);
      const answer = process(job(operation, orgId, input(main) as never));
      expect(await endsWithin(answer, 1_000), 'while the round runs').to.equal(false);
      expect(held.asked).to.deep.equal([orgId]);
      held.end();
      expect(await answer).to.be.an('object');
    });
  }

  it('a read of no kept figure does not wait', async () => {
    const { db, orgId, main } = await loaded();
    const held = heldRound();
    const process = createReadProcessor(db, pino({ level: 'silent' }), held.figures);
    const t = (await db.collection('bank_transactions').findOne({ org_id: orgId, bank_account_id: main }))!;
    const answer = process(job('match_suggestions.list', orgId, { bank_transaction_id: String(t._id), limit: 5 }));
    expect(await endsWithin(answer, 10_000), 'without the round ending').to.equal(true);
    expect(held.asked).to.deep.equal([]);
  });
});
