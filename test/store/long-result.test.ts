// An apply's long result is stored once, in the claim of the transition that
// ends it (docs/design/staged-lifecycle.md "How an operation is stored"): the
// operation names the claim, and every read of the operation joins it back.
import { expect } from 'chai';
import type { Db } from 'mongodb';
import { transitionClaimId } from '../../shared/storage/audit-events.js';
import { collections, type StagedOperationDoc } from '../../shared/storage/collections.js';
import type { ApplyResult } from '../../shared/storage/staged-apply-state.js';
import {
  encodeOperation,
  MissingResultClaimError,
  RESULT_INLINE_LIMIT,
} from '../../shared/storage/staged-operation-codec.js';
import { rollForward, transitionStatus } from '../../shared/storage/staged-operation-status.js';
import { findStagedOperation } from '../../shared/storage/staged-operations.js';
import { applyingOperation } from '../helpers/applying-operation.js';
import { handleForAdapter } from '../helpers/ferretdb-adapter.js';

/** An applied result listing `n` inserted links: past RESULT_INLINE_LIMIT characters of JSON from about 900. */
function resultOf(n: number): ApplyResult {
  return {
    status: 'applied',
    at: '2026-12-01T10:00:00.000Z',
    by: 'bob',
    changes: Array.from({ length: n }, (_, i) => ({
      action: 'insert' as const,
      collection: 'bank_links' as const,
      id: `lnk_${String(i).padStart(24, '0')}`,
    })),
  };
}

const ending = (id: string) => ({
  at: '2026-12-01T10:00:00.000Z',
  actor: 'bob',
  from: 'applying' as const,
  to: 'applied' as const,
  note: null,
  request_id: `req_${id}`,
  claim_id: `claim_${id}`,
});

for (const adapter of ['mongo', 'ferretdb'] as const) {
  describe(`an apply's long result (${adapter} adapter)`, function () {
    this.timeout(120_000);
    const store = handleForAdapter(adapter, 'long_result');

    async function applying(db: Db, name: string): Promise<{ orgId: string; id: string; op: StagedOperationDoc }> {
      const orgId = `org_${name}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
      const id = `stg_${name}`;
      const op = applyingOperation(id, orgId, 'job-a', new Date(Date.now() + 60_000).toISOString());
      await collections(db).stagedOperations.insertOne(encodeOperation(op));
      return { orgId, id, op };
    }

    it('is kept in the claim alone, and the operation reads back with it whole', async function () {
      const db = await store(this);
      const { orgId, id } = await applying(db, 'long');
      const result = resultOf(2_000);
      expect(JSON.stringify(result).length).to.be.above(RESULT_INLINE_LIMIT);
      const moved = await transitionStatus(db, orgId, id, 'applying', ending(id), { result });
      expect(moved.won).to.equal(true);
      const stored = await collections(db).stagedOperations.findOne({ _id: id });
      expect(stored?.result_claim).to.equal(transitionClaimId(id, 'applying'));
      expect(stored).not.to.have.property('result_json');
      const claim = await collections(db).auditEvents.findOne({ _id: transitionClaimId(id, 'applying') });
      expect(claim?.result_json).to.equal(JSON.stringify(result));
      const read = await findStagedOperation(db, orgId, id);
      expect(read?.status).to.equal('applied');
      expect(read?.result).to.deep.equal(result);
      expect(read).not.to.have.property('result_claim');
    });

    it('a short one stays on the operation', async function () {
      const db = await store(this);
      const { orgId, id } = await applying(db, 'short');
      const result = resultOf(3);
      await transitionStatus(db, orgId, id, 'applying', ending(id), { result });
      const stored = await collections(db).stagedOperations.findOne({ _id: id });
      expect(stored?.result_json).to.equal(JSON.stringify(result));
      expect(stored).not.to.have.property('result_claim');
      expect((await findStagedOperation(db, orgId, id))?.result).to.deep.equal(result);
    });

    it('a claim rolled forward for a job that died after it names the claim the same way', async function () {
      const db = await store(this);
      const { orgId, id, op } = await applying(db, 'rolled');
      const result = resultOf(2_000);
      await transitionStatus(db, orgId, id, 'applying', ending(id), { result });
      // The operation as the dead job left it: claimed, not written.
      await collections(db).stagedOperations.deleteOne({ _id: id });
      await collections(db).stagedOperations.insertOne(encodeOperation(op));
      const claim = await collections(db).auditEvents.findOne({ _id: transitionClaimId(id, 'applying') });
      await rollForward(db, orgId, id, claim!);
      const stored = await collections(db).stagedOperations.findOne({ _id: id });
      expect(stored?.result_claim).to.equal(claim!._id);
      expect((await findStagedOperation(db, orgId, id))?.result).to.deep.equal(result);
    });

    it('is never read without its claim', async function () {
      const db = await store(this);
      const { orgId, id } = await applying(db, 'lost');
      await transitionStatus(db, orgId, id, 'applying', ending(id), { result: resultOf(2_000) });
      await collections(db).auditEvents.deleteOne({ _id: transitionClaimId(id, 'applying') });
      let error: unknown = null;
      await findStagedOperation(db, orgId, id).catch((err: unknown) => (error = err));
      expect(error).to.be.instanceOf(MissingResultClaimError);
    });
  });
}
