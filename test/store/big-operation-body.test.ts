// An operation whose plan, preconditions and context are more than one
// document can hold (docs/design/staged-lifecycle.md "How an operation is
// stored"): MongoDB refuses a document past 16 MiB, and the Node driver
// refuses to encode one on FerretDB too. Before the body was cut into parts,
// staging a 15,000-transaction repair failed every attempt with a RangeError.
import { expect } from 'chai';
import { BSON, type Db } from 'mongodb';
import type { StageAnswer } from '../../shared/contract/staging-answer.js';
import type { StagedOperationDoc } from '../../shared/storage/collections.js';
import {
  ANSWER_PART_CHARS,
  findJobResult,
  MissingAnswerPartError,
  saveJobResult,
} from '../../shared/storage/job-results.js';
import { closeStoreAdapter } from '../../shared/storage/store-adapter.js';
import { ferretdbHandle } from '../helpers/ferretdb-adapter.js';
import { BODY_PART_CHARS } from '../../shared/storage/staged-operation-codec.js';
import { findStagedOperation, insertStagedOperation } from '../../shared/storage/staged-operations.js';
import { isFerretDb } from '../../shared/storage/ferretdb/server.js';
import { stack } from '../helpers/stack.js';

const MONGODB_MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** A repair-shaped operation with about `actions` × 200 characters of plan, some of them two or four bytes as UTF-8. */
function bigOperation(orgId: string, actions: number): StagedOperationDoc {
  const at = '2026-11-28T10:00:00.000Z';
  return {
    _id: `stg_${orgId}`,
    org_id: orgId,
    kind: 'ledger_link_repair',
    status: 'staged',
    created_by: 'agent:ü',
    created_at: at,
    expires_at: '2026-12-05T10:00:00.000Z',
    request_id: 'req',
    idempotency_key: null,
    scope_key: `repair:ba_${orgId}:cp_1`,
    input: {},
    plan_hash: 'h',
    warnings: [],
    history: [{ at, actor: 'agent:ü', from: null, to: 'staged', note: null }],
    plan: {
      actions: Array.from({ length: actions }, (_, i) => ({
        kind: 'move',
        bank_transaction_id: `bt_${orgId}_${i}`,
        link_id: `lnk_${orgId}_${i}`,
        from_ledger_entry_id: `le_${orgId}_${i}`,
        to_ledger_entry_id: `le_${orgId}_${i + 1}`,
        amount_minor: 1000 + i,
        memo: i % 7 === 0 ? 'Größe 😀 €' : 'plain',
      })),
    },
    preconditions: Array.from({ length: actions }, (_, i) => ({
      collection: 'bank_links',
      id: `lnk_${orgId}_${i}`,
      version: 1,
    })),
    context: {
      ledger_entries: [
        {
          id: `le_${orgId}_0`,
          entry_date: '2026-01-01',
          reference: 'R',
          description: '😀'.repeat(1000),
          counterparty_id: 'cp_1',
          currency: 'EUR',
          open_amount_minor: 1000,
        },
      ],
    },
  };
}

describe("a staged operation, and a job's answer, too big for one document", function () {
  this.timeout(300_000);
  let ferretDb: Db | null = null;
  after(async () => {
    if (ferretDb) await closeStoreAdapter(ferretDb);
  });

  it('is stored with its body cut into parts, none past 16 MiB, and reads back whole, through the driver and in SQL', async () => {
    const s = await stack();
    const orgId = `org_bigbody_${Date.now().toString(36)}`;
    const op = bigOperation(orgId, 90_000);
    const json = JSON.stringify(op.plan) + JSON.stringify(op.preconditions) + JSON.stringify(op.context);
    expect(Buffer.byteLength(json)).to.be.greaterThan(MONGODB_MAX_DOCUMENT_BYTES);
    const bodies = s.db.collection('staged_operation_bodies');
    try {
      await insertStagedOperation(s.db, op);
      const parts = await bodies
        .find({ staged_operation_id: op._id } as never)
        .sort({ part: 1 })
        .toArray();
      expect(parts.length).to.equal(Math.ceil(json.length / BODY_PART_CHARS));
      for (const part of parts)
        expect(BSON.calculateObjectSize(part), String(part._id)).to.be.below(MONGODB_MAX_DOCUMENT_BYTES);
      const stored = await s.db.collection('staged_operations').findOne({ _id: op._id } as never);
      expect(stored).to.include({ body_id: parts[0]!._id, body_parts: parts.length });

      const viaDriver = await findStagedOperation(s.db, orgId, op._id);
      expect(JSON.stringify(viaDriver)).to.equal(JSON.stringify(op));
      if ((await isFerretDb(s.db)) && s.config.ferretdbPostgresUrl) {
        ferretDb = await ferretdbHandle(s.db, s.config.ferretdbPostgresUrl);
        const inSql = await findStagedOperation(ferretDb, orgId, op._id);
        expect(JSON.stringify(inSql)).to.equal(JSON.stringify(op));
      }
    } finally {
      // Twenty MB the test files that follow need not carry.
      await bodies.deleteMany({ org_id: orgId });
      await s.db.collection('staged_operations').deleteMany({ org_id: orgId });
    }
  });

  it('an answer past 16 MiB (a dry run of such an operation is its plan) is stored in parts and read back whole; a second write of the job keeps the first and leaves no parts; an approval of it is stored without its plan, in one document', async () => {
    const s = await stack();
    const orgId = `org_bigans_${Date.now().toString(36)}`;
    const jobId = `job_${orgId}`;
    const op = bigOperation(orgId, 90_000);
    const answer = {
      operation: 'ledger_link_repair.stage',
      outcome: 'dry_run',
      data: {
        outcome: 'staged',
        dry_run: true,
        plan: op.plan,
        preconditions: op.preconditions,
        context: op.context,
      },
      warnings: [],
    } as unknown as StageAnswer;
    const json = JSON.stringify(answer);
    expect(Buffer.byteLength(json)).to.be.greaterThan(MONGODB_MAX_DOCUMENT_BYTES);
    const results = s.db.collection('job_results');
    const result = (a: StageAnswer) => ({
      _id: jobId,
      org_id: orgId,
      actor: 'agent:ü',
      request_id: 'req',
      answer: a,
      finished_at: new Date().toISOString(),
    });
    try {
      expect(await saveJobResult(s.db, result(answer))).to.equal(true);
      const stored = await results.find({ org_id: orgId }).toArray();
      expect(stored.length).to.equal(1 + Math.ceil(json.length / ANSWER_PART_CHARS));
      for (const doc of stored)
        expect(BSON.calculateObjectSize(doc), String(doc._id)).to.be.below(MONGODB_MAX_DOCUMENT_BYTES);
      expect(stored.every((d) => typeof d.expires_at === 'string')).to.equal(true);
      const other = {
        ...answer,
        data: { ...(answer as { data: object }).data, outcome: 'noop' },
      } as unknown as StageAnswer;
      expect(await saveJobResult(s.db, result(other))).to.equal(false);
      expect(await results.countDocuments({ org_id: orgId })).to.equal(stored.length);
      expect(JSON.stringify((await findJobResult(s.db, orgId, jobId))?.answer)).to.equal(json);
      if ((await isFerretDb(s.db)) && s.config.ferretdbPostgresUrl) {
        ferretDb ??= await ferretdbHandle(s.db, s.config.ferretdbPostgresUrl);
        expect(JSON.stringify((await findJobResult(ferretDb, orgId, jobId, undefined))?.answer)).to.equal(json);
      }
      // A part gone is an error, never half an answer.
      await results.deleteOne({ org_id: orgId, part: 1 });
      expect(
        await findJobResult(s.db, orgId, jobId).then(
          () => null,
          (e: unknown) => e,
        ),
      ).to.be.instanceOf(MissingAnswerPartError);
      // Its approval's answer leaves the plan, preconditions and context to the operation (read back joined).
      const approval = {
        operation: 'staged_operations.approve',
        outcome: 'done',
        data: { staged_operation_id: op._id, status: 'approved', ...(answer as { data: object }).data },
        warnings: [],
      } as unknown as StageAnswer;
      expect(await saveJobResult(s.db, { ...result(approval), _id: `${jobId}_approve` })).to.equal(true);
      expect(await results.countDocuments({ org_id: orgId, part_of: `${jobId}_approve` })).to.equal(0);
      expect((await results.findOne({ _id: `${jobId}_approve` } as object))?.answer_json).to.equal(
        JSON.stringify({
          ...approval,
          data: { staged_operation_id: op._id, status: 'approved', outcome: 'staged', dry_run: true },
        }),
      );
    } finally {
      await results.deleteMany({ org_id: orgId });
    }
  });
});
