import { expect } from 'chai';
import type { ReversalData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { utcDate } from '../../shared/domain/dates.js';
import {
  actors,
  apply,
  approve,
  countStagedWithPlan,
  doc,
  docs,
  locksOf,
  show,
  storedOperation,
} from '../helpers/staged.js';

const path = (entryId: string): string => `/api/v1/cli/ledger/entries/${entryId}/reverse/stage`;

/** An org with one receivable paid by one linked bank transaction. */
async function paidInvoice(options: { lockDate?: string | null; reconciled?: boolean } = {}) {
  const books = new Books({ lock_date: options.lockDate ?? null });
  const account = books.account();
  const entry = books.invoice(12_000, { entry_date: '2026-02-03' });
  const txn = books.txn(
    account,
    12_000,
    options.reconciled ? { status: 'reconciled', reconciliation_id: 'rec_1' } : {},
  );
  const link = books.link(txn, entry, 12_000);
  const s = await stack();
  await s.load(books.file);
  const token = await s.token(books.orgId, ['ledger:stage']);
  return { books, entry, txn, link, token };
}

describe('POST /ledger/entries/{entry_id}/reverse/stage', () => {
  it('stages a reversal: 201, envelope, Location, the reversing entry with debit and credit swapped, and an unlink per bank link', async () => {
    const { books, entry, txn, link, token } = await paidInvoice();
    const res = await call<ReversalData>('POST', path(entry), {
      token,
      body: { reversal_date: '2026-03-01', reason: 'duplicate invoice' },
    });

    expect(res.status).to.equal(201);
    expect(res.headers.get('x-request-id')).to.be.a('string').and.equal(res.body.request_id);
    expect(res.body).to.include({ ok: true, api_version: 'v1', operation: 'ledger_reversal.stage' });
    const data = res.body.data;
    expect(res.headers.get('location')).to.equal(`/api/v1/cli/staged-operations/${data.staged_operation_id}`);
    expect(data).to.include({ outcome: 'staged', status: 'staged' });
    expect(data.plan).to.deep.equal({
      ledger_entry_id: entry,
      reversal_date: '2026-03-01',
      reason: 'duplicate invoice',
      reversing_entry: {
        entry_date: '2026-03-01',
        description: `Reversal of ${entry}`,
        reference: `REF-${entry}`,
        counterparty_id: books.cp('a'),
        currency: 'EUR',
        lines: [
          { account: '1400', debit_minor: 0, credit_minor: 12_000 },
          { account: '8400', debit_minor: 12_000, credit_minor: 0 },
        ],
        reversal_of: entry,
      },
      actions: [
        { kind: 'unlink', bank_transaction_id: txn, link_id: link, ledger_entry_id: entry, amount_minor: 12_000 },
      ],
    });
    expect(data.plan_hash).to.match(/^[0-9a-f]{64}$/);

    const stored = await storedOperation(data.staged_operation_id);
    expect(stored).to.include({
      status: 'staged',
      kind: 'ledger_reversal',
      org_id: books.orgId,
      created_by: 'alice',
      plan_hash: data.plan_hash,
    });
    expect(stored!.plan).to.deep.equal(data.plan);
    expect(stored!.history).to.have.length(1);
  });

  it('defaults reversal_date to today (UTC) and reason to null', async () => {
    const { entry, token } = await paidInvoice();
    const res = await call<ReversalData>('POST', path(entry), { token });
    expect(res.status).to.equal(201);
    expect(res.body.data.plan.reversal_date).to.equal(utcDate(new Date()));
    expect(res.body.data.plan.reason).to.equal(null);
  });

  it('answers 404 not_found for an entry that does not exist', async () => {
    const { token } = await paidInvoice();
    const res = await call<ReversalData>('POST', path('le_missing'), { token, body: {} });
    expect(res.status).to.equal(404);
    expect(res.body.error).to.include({ code: 'not_found', retryable: false });
  });

  it("answers 404 not_found, not 403, for another organisation's entry", async () => {
    const mine = await paidInvoice();
    const theirs = await paidInvoice();
    const res = await call<ReversalData>('POST', path(theirs.entry), { token: mine.token, body: {} });
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('not_found');
  });

  it('refuses an entry already reversed: 409 already_reversed with reversed_by', async () => {
    const books = new Books();
    const original = books.invoice(5_000, { status: 'reversed', reversed_by: `le_${books.uid}_rev` });
    books.invoice(-5_000, { id: `le_${books.uid}_rev`, reversal_of: original });
    const s = await stack();
    await s.load(books.file);
    const res = await call<ReversalData>('POST', path(original), {
      token: await s.token(books.orgId, ['ledger:stage']),
      body: {},
    });
    expect(res.status).to.equal(409);
    expect(res.body.error).to.deep.include({
      code: 'already_reversed',
      details: { ledger_entry_id: original, reversed_by: `le_${books.uid}_rev` },
    });
  });

  it('refuses a second, different reversal of an entry with a pending one: 409 pending_operation with its id', async () => {
    const { entry, token } = await paidInvoice();
    const first = await call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-03-01' } });
    expect(first.status).to.equal(201);
    const second = await call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-03-02' } });
    expect(second.status).to.equal(409);
    expect(second.body.error).to.deep.include({
      code: 'pending_operation',
      retryable: true,
      details: { staged_operation_ids: [first.body.data.staged_operation_id] },
    });
  });

  it('answers the pending operation itself (200) when the very same reversal is staged again', async () => {
    const { entry, token } = await paidInvoice();
    const first = await call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-03-01' } });
    const again = await call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-03-01' } });
    expect(again.status).to.equal(200);
    expect(again.body.data.staged_operation_id).to.equal(first.body.data.staged_operation_id);
    expect(again.body.warnings.map((w: { code: string }) => w.code)).to.deep.equal(['already_staged']);
    const count = await countStagedWithPlan({ ledger_entry_id: entry });
    expect(count).to.equal(1);
  });

  it('answers 409 pending_operation, not the later refusal, while a reversal holds the entry or its bank transaction', async () => {
    const books = new Books({ lock_date: null });
    const account = books.account();
    const first = books.invoice(5_000, { entry_date: '2026-02-03' });
    const second = books.invoice(7_000, { entry_date: '2026-02-03' });
    const txn = books.txn(account, 12_000);
    books.link(txn, first, 5_000);
    books.link(txn, second, 7_000);
    const s = await stack();
    await s.load(books.file);
    const token = await s.token(books.orgId, ['ledger:stage']);
    const pending = await call<ReversalData>('POST', path(first), { token, body: { reversal_date: '2026-03-01' } });
    expect(pending.status).to.equal(201);
    const ids = [pending.body.data.staged_operation_id];
    // Dated before the entry: refused after the pending check (docs/reference/http-api.md), so the holder answers first.
    for (const entry of [first, second]) {
      const res = await call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-02-02' } });
      expect(res.status, entry).to.equal(409);
      expect(res.body.error).to.deep.include({ code: 'pending_operation', details: { staged_operation_ids: ids } });
    }
  });

  it('refuses a reversal dated before the entry: 422 reversal_before_entry', async () => {
    const { entry, token } = await paidInvoice();
    const res = await call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-02-02' } });
    expect(res.status).to.equal(422);
    expect(res.body.error).to.deep.include({
      code: 'reversal_before_entry',
      details: { reversal_date: '2026-02-02', entry_date: '2026-02-03' },
    });
  });

  it('refuses a reversal on or before the lock date: 422 period_locked', async () => {
    const { entry, token } = await paidInvoice({ lockDate: '2026-03-31' });
    const res = await call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-03-31' } });
    expect(res.status).to.equal(422);
    expect(res.body.error).to.deep.include({
      code: 'period_locked',
      details: { reversal_date: '2026-03-31', lock_date: '2026-03-31' },
    });
  });

  it('reverses an entry dated in the closed period by an entry dated after it; once the lock reaches the reversal date, apply answers 409 stale_plan period_locked and writes nothing', async () => {
    // The entry (2026-02-03) is on or before the lock date: marking it reversed is a status change.
    const { books, entry, link } = await paidInvoice({ lockDate: '2026-02-28' });
    const who = await actors(books.orgId);
    const staged = await call<ReversalData>('POST', path(entry), {
      token: who.alice,
      body: { reversal_date: '2026-03-01' },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(who.bob, id)).status).to.equal(200);

    // The period is closed through March meanwhile, written directly: no version of what the plan read changes.
    const s = await stack();
    await s.db.collection('orgs').updateOne({ _id: books.orgId } as never, { $set: { lock_date: '2026-03-31' } });
    const applied = await apply(who.bob, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(409);
    expect(applied.body.error.code).to.equal('stale_plan');
    expect(applied.body.error.details).to.deep.equal({
      staged_operation_id: id,
      changed: [],
      reason: 'period_locked',
      lock_date: '2026-03-31',
      ledger_entry_id: entry,
      reversal_date: '2026-03-01',
    });
    expect(applied.body.error.message).to.include('the reversing entry dated 2026-03-01');
    expect((await show(who.bob, id)).body.data.status).to.equal('stale');
    expect(await doc('ledger_entries', entry)).to.include({ status: 'posted', reversed_by: null });
    expect(await docs('ledger_entries', { reversal_of: entry })).to.deep.equal([]);
    expect(await doc('bank_links', link)).to.not.equal(null);
    expect(await locksOf(id)).to.equal(0);
  });

  it('refuses an entry whose bank link is on a reconciled transaction: 409 reconciled_links', async () => {
    const { entry, txn, link, token } = await paidInvoice({ reconciled: true });
    const res = await call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-03-01' } });
    expect(res.status).to.equal(409);
    expect(res.body.error).to.deep.include({
      code: 'reconciled_links',
      details: { link_ids: [link], transaction_ids: [txn] },
    });
  });

  it('refuses unknown fields and bad dates with 400 validation_failed and a pointer for each', async () => {
    const { entry, token } = await paidInvoice();
    const res = await call<ReversalData>('POST', path(entry), {
      token,
      body: { reversal_date: '2026-02-30', reson: 'typo' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('validation_failed');
    expect(res.body.error.errors).to.have.deep.members([
      { pointer: '/reson', message: 'is not a known field' },
      { pointer: '/reversal_date', message: 'must be a real calendar date YYYY-MM-DD' },
    ]);
  });

  it('answers 401 unauthenticated without a token and with a wrong one', async () => {
    const { entry } = await paidInvoice();
    const none = await call<ReversalData>('POST', path(entry), { body: {} });
    const wrong = await call<ReversalData>('POST', path(entry), { token: 'bst_not-a-real-token', body: {} });
    for (const res of [none, wrong]) {
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal('unauthenticated');
      expect(res.headers.get('x-request-id')).to.be.a('string');
    }
  });

  it('answers 403 forbidden for a token without ledger:stage', async () => {
    const { books, entry } = await paidInvoice();
    const token = await (await stack()).token(books.orgId, ['bank:stage', 'inbox:read']);
    const res = await call<ReversalData>('POST', path(entry), { token, body: {} });
    expect(res.status).to.equal(403);
    expect(res.body.error).to.deep.include({ code: 'forbidden', details: { required_scope: 'ledger:stage' } });
  });
});
