// A staging job's stored answer written in SQL by the FerretDB adapter
// (shared/storage/job-results.ts, docs/indexes.md "Writes in SQL"): read back
// through the driver as written, first write wins there too, and the driver
// path still answers where the statement is declined.
import { expect } from 'chai';
import type { Db } from 'mongodb';
import type { StageAnswer } from '../../../shared/contract/staging-answer.js';
import { collections } from '../../../shared/storage/collections.js';
import { findJobResult, saveJobResult, storedJobResult } from '../../../shared/storage/job-results.js';
import { MAX_INSERT_CHARS } from '../../../shared/storage/ferretdb/postgres-inserts.js';
import { closeStoreAdapter } from '../../../shared/storage/store-adapter.js';
import { ferretdbHandle, ferretdbStack, sqlStats } from '../../helpers/ferretdb-adapter.js';

describe('stored job answers written in SQL (FerretDB adapter)', function () {
  this.timeout(120_000);
  let db: Db;
  let pages: Db;
  const orgId = `org_results_sql_${Date.now()}`;
  const answer = (code: string): StageAnswer =>
    ({
      operation: 'ledger_reversal.stage',
      outcome: 'refused',
      code,
      details: { link_ids: ['lnk_1', 'lnk_ü "2"'] },
    }) as StageAnswer;
  const result = (id: string, a: StageAnswer) => ({
    _id: id,
    org_id: orgId,
    actor: 'agent:test',
    request_id: `req_${id}`,
    answer: a,
    finished_at: '2026-11-27T10:00:00.000Z',
  });

  before(async function () {
    const stack = await ferretdbStack(this, 'answers are stored through the driver there');
    db = stack.s.db;
    pages = await ferretdbHandle(db, stack.postgresUrl);
    // FerretDB makes a collection's table on its first insert: make sure it is there.
    await saveJobResult(db, result(`job_seed_${orgId}`, answer('seed')));
  });
  after(async () => {
    if (pages) await closeStoreAdapter(pages);
  });

  it('stores the answer in one SQL statement, read back through the driver as the driver writes it', async () => {
    const id = `job_a_${orgId}`;
    const written = sqlStats(pages).written;
    expect(await saveJobResult(pages, result(id, answer('reconciled_links')))).to.equal(true);
    expect(sqlStats(pages).written).to.equal(written + 1);
    const back = await collections(db).jobResults.findOne({ _id: id });
    expect(back).to.deep.equal(storedJobResult(result(id, answer('reconciled_links'))));
    expect((await findJobResult(pages!, orgId, id, undefined))?.answer).to.deep.equal(answer('reconciled_links'));
  });

  it('keeps the first answer: a second write of the same job answers false and changes nothing', async () => {
    const id = `job_b_${orgId}`;
    expect(await saveJobResult(pages, result(id, answer('first')))).to.equal(true);
    const written = sqlStats(pages).written;
    expect(await saveJobResult(pages, result(id, answer('second')))).to.equal(false);
    expect(sqlStats(pages).written).to.equal(written);
    expect(await saveJobResult(db, result(id, answer('third')))).to.equal(false);
    expect((await findJobResult(db, orgId, id))?.answer).to.deep.equal(answer('first'));
  });

  it('goes through the driver when the statement is declined (more text than one statement takes)', async () => {
    const id = `job_c_${orgId}`;
    const big = { ...answer('big'), details: { note: 'x'.repeat(MAX_INSERT_CHARS) } } as StageAnswer;
    const written = sqlStats(pages).written;
    const declined = sqlStats(pages).declined;
    expect(await saveJobResult(pages!, result(id, big))).to.equal(true);
    expect(sqlStats(pages).written).to.equal(written);
    expect(sqlStats(pages).declined).to.equal(declined + 1);
    expect((await findJobResult(db, orgId, id))?.answer).to.deep.equal(big);
  });
});
