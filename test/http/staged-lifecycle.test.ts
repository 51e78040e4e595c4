import { expect } from 'chai';
import { collections } from '../../shared/storage/collections.js';
import { Books } from '../helpers/books.js';
import type { LinkRepairData, ReconcileData, ReversalData, StagedOperationData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, doc, docs, locksOf, reject, show } from '../helpers/staged.js';

const reversePath = (entryId: string): string => `/api/v1/cli/ledger/entries/${entryId}/reverse/stage`;
const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';
const REPAIR = '/api/v1/cli/bank-matches/ledger-link-repair/stage';

/** One receivable paid by one linked bank transaction. */
async function paidInvoice(org: { require_distinct_approver?: boolean } = {}) {
  const books = new Books(org);
  const account = books.account();
  const entry = books.invoice(12_000, { entry_date: '2026-02-03' });
  const txn = books.txn(account, 12_000);
  const link = books.link(txn, entry, 12_000);
  await (await stack()).load(books.file);
  return { books, account, entry, txn, link, who: await actors(books.orgId) };
}

async function stageReversal(token: string, entry: string): Promise<string> {
  const res = await call<ReversalData>('POST', reversePath(entry), {
    token,
    body: { reversal_date: '2026-03-01', reason: 'duplicate' },
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.data.staged_operation_id;
}

describe('staged operations: review and apply', () => {
  describe('happy path, each kind', () => {
    it('reversal: stage → approve (another actor) → apply posts the reversing entry, marks the original reversed, removes its links; planning again is refused; the lock is gone', async () => {
      const { books, entry, txn, link, who } = await paidInvoice();
      const staged = await call<ReversalData>('POST', reversePath(entry), {
        token: who.alice,
        body: { reversal_date: '2026-03-01', reason: 'duplicate' },
      });
      expect(staged.status).to.equal(201);
      const id = staged.body.data.staged_operation_id;
      const location = await call<StagedOperationData>('GET', staged.headers.get('location')!, { token: who.alice });
      expect(location.status).to.equal(200);
      expect(location.body.data).to.include({
        staged_operation_id: id,
        status: 'staged',
        kind: 'ledger_reversal',
        created_by: 'alice',
      });
      expect(location.body.data.plan).to.deep.equal(staged.body.data.plan);
      expect(location.body.data.summary).to.deep.equal({ ledger_entry_id: entry, unlinks: 1, unlinked_minor: 12_000 });

      const approved = await approve(who.bob, id, 'looks right');
      expect(approved.status).to.equal(200);
      expect(approved.body.operation).to.equal('staged_operations.approve');
      expect(approved.body.data.status).to.equal('approved');
      expect(
        approved.body.data.history.map((h: { from: string | null; to: string; actor: string; note: string | null }) => [
          h.from,
          h.to,
          h.actor,
          h.note,
        ]),
      ).to.deep.equal([
        [null, 'staged', 'alice', null],
        ['staged', 'approved', 'bob', 'looks right'],
      ]);

      const applied = await apply(who.bob, id);
      expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
      expect(applied.body.data.status).to.equal('applied');
      const reversingId = applied.body.data.result.changes[0]!.id;
      expect(applied.body.data.result.changes).to.deep.equal([
        { action: 'insert', collection: 'ledger_entries', id: reversingId },
        { action: 'update', collection: 'ledger_entries', id: entry },
        { action: 'delete', collection: 'bank_links', id: link },
      ]);
      expect(applied.body.data.history.map((h: { to: string }) => h.to)).to.deep.equal([
        'staged',
        'approved',
        'applying',
        'applied',
      ]);

      expect(await doc('ledger_entries', entry)).to.include({
        status: 'reversed',
        reversed_by: reversingId,
        version: 2,
      });
      const reversing = await doc('ledger_entries', reversingId);
      expect(reversing).to.deep.include({
        org_id: books.orgId,
        entry_date: '2026-03-01',
        description: `Reversal of ${entry}`,
        reference: `REF-${entry}`,
        counterparty_id: books.cp('a'),
        currency: 'EUR',
        status: 'posted',
        reversal_of: entry,
        reversed_by: null,
        version: 1,
        lines: [
          { account: '1400', debit_minor: 0, credit_minor: 12_000 },
          { account: '8400', debit_minor: 12_000, credit_minor: 0 },
        ],
      });
      expect(await doc('bank_links', link)).to.equal(null);
      expect(await doc('bank_transactions', txn)).to.include({ version: 1, status: 'unreconciled' });
      expect(await locksOf(id)).to.equal(0);

      const again = await call('POST', reversePath(entry), { token: who.alice, body: {} });
      expect(again.status).to.equal(409);
      expect(again.body.error).to.deep.include({
        code: 'already_reversed',
        details: { ledger_entry_id: entry, reversed_by: reversingId },
      });
      const events = await collections((await stack()).db)
        .auditEvents.find({ staged_operation_id: id })
        .toArray();
      expect(events.map((e) => `${String(e.from ?? null)}>${e.to}`).sort()).to.deep.equal([
        'applying>applied',
        'approved>applying',
        'null>staged',
        'staged>approved',
      ]);
    });

    it('reconciliation: apply marks the transactions reconciled with the operation id and moves reconciled_through; the same statement is then refused; the next statement stages', async () => {
      const books = new Books();
      const account = books.account({ opening_balance_minor: 500 });
      const a = books.linkedTxn(account, 1_000, { booking_date: '2026-02-03' });
      const b = books.linkedTxn(account, -300, { booking_date: '2026-02-05' });
      const later = books.linkedTxn(account, 700, { booking_date: '2026-03-04' });
      await (await stack()).load(books.file);
      const who = await actors(books.orgId);
      const statement = { end_date: '2026-02-28', closing_balance_minor: 1_200, currency: 'EUR' };
      const staged = await call<ReconcileData>('POST', RECONCILE, {
        token: who.alice,
        body: { bank_account_id: account, statement, transaction_ids: [a.txn, b.txn] },
      });
      expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
      const id = staged.body.data.staged_operation_id;

      expect((await approve(who.bob, id)).status).to.equal(200);
      const applied = await apply(who.bob, id);
      expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
      expect(applied.body.data.result.changes).to.deep.equal([
        { action: 'update', collection: 'bank_transactions', id: a.txn },
        { action: 'update', collection: 'bank_transactions', id: b.txn },
        { action: 'update', collection: 'bank_accounts', id: account },
      ]);
      for (const t of [a.txn, b.txn])
        expect(await doc('bank_transactions', t)).to.include({
          status: 'reconciled',
          reconciliation_id: id,
          version: 2,
        });
      expect(await doc('bank_transactions', later.txn)).to.include({
        status: 'unreconciled',
        reconciliation_id: null,
        version: 1,
      });
      const acct = await doc('bank_accounts', account);
      expect(acct).to.deep.include({ reconciled_through: { date: '2026-02-28', balance_minor: 1_200 }, version: 2 });
      expect(await locksOf(id)).to.equal(0);

      const again = await call('POST', RECONCILE, {
        token: who.alice,
        body: { bank_account_id: account, statement, transaction_ids: [a.txn, b.txn] },
      });
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('already_reconciled');
      const next = await call<ReconcileData>('POST', RECONCILE, {
        token: who.alice,
        body: {
          bank_account_id: account,
          statement: { end_date: '2026-03-31', closing_balance_minor: 1_900, currency: 'EUR' },
          transaction_ids: [later.txn],
        },
      });
      expect(next.status, JSON.stringify(next.body)).to.equal(201);
      expect(next.body.data.plan.opening_balance_minor).to.equal(1_200);
    });

    it('repair: apply performs the move (link deleted at 0, a link to the target created); planning the scope again is noop; a different plan for the scope then stages', async () => {
      const books = new Books();
      const account = books.account();
      const older = books.invoice(1_000, { entry_date: '2026-02-01' });
      const newer = books.invoice(1_000, { entry_date: '2026-02-05' });
      const txn = books.txn(account, 1_000, { booking_date: '2026-02-10' });
      const wrong = books.link(txn, newer, 1_000);
      const s = await stack();
      await s.load(books.file);
      const who = await actors(books.orgId);
      const body = { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-02-28' };
      const staged = await call<LinkRepairData>('POST', REPAIR, { token: who.alice, body });
      expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
      expect(staged.body.data.plan.actions).to.deep.equal([
        {
          kind: 'move',
          bank_transaction_id: txn,
          link_id: wrong,
          from_ledger_entry_id: newer,
          to_ledger_entry_id: older,
          amount_minor: 1_000,
        },
      ]);
      const id = staged.body.data.staged_operation_id;
      expect((await approve(who.bob, id)).status).to.equal(200);
      const applied = await apply(who.bob, id);
      expect(applied.status, JSON.stringify(applied.body)).to.equal(200);

      const links = await docs('bank_links', { bank_transaction_id: txn });
      expect(links.map((l) => [l.ledger_entry_id, l.amount_minor, l.version, l.created_by])).to.deep.equal([
        [older, 1_000, 1, 'bob'],
      ]);
      expect(applied.body.data.result.changes).to.deep.equal([
        { action: 'delete', collection: 'bank_links', id: wrong },
        { action: 'insert', collection: 'bank_links', id: links[0]!._id },
      ]);
      expect(await locksOf(id)).to.equal(0);

      const again = await call<LinkRepairData>('POST', REPAIR, { token: who.alice, body });
      expect(again.status).to.equal(200);
      expect(again.body.data.outcome).to.equal('noop');

      // A new unlinked payment of the counterparty: a different plan for the same subject.
      const more = new Books();
      const t2 = {
        id: books.id('bt'),
        bank_account_id: account,
        booking_date: '2026-02-12',
        amount_minor: 400,
        currency: 'EUR',
        counterparty_id: books.cp('a'),
        counterparty_name: 'Customer A',
        remittance_info: '',
        status: 'unreconciled' as const,
      };
      await s.load({
        ...more.file,
        org: books.file.org,
        bank_accounts: books.file.bank_accounts,
        ledger_entries: books.file.ledger_entries,
        bank_transactions: [t2],
        bank_links: [],
      });
      const different = await call<LinkRepairData>('POST', REPAIR, { token: who.alice, body });
      expect(different.status, JSON.stringify(different.body)).to.equal(201);
      expect(different.body.data.plan.actions).to.deep.equal([
        { kind: 'link', bank_transaction_id: t2.id, ledger_entry_id: newer, amount_minor: 400 },
      ]);
    });
  });

  describe('the rules', () => {
    it('refuses self-approval when the org requires a distinct approver: 403 self_approval_forbidden', async () => {
      const { entry, books } = await paidInvoice();
      const self = await (await stack()).token(books.orgId, ['ledger:stage', 'staged:read', 'staged:approve'], 'erin');
      const id = await stageReversal(self, entry);
      const res = await approve(self, id);
      expect(res.status).to.equal(403);
      expect(res.body.error).to.deep.include({
        code: 'self_approval_forbidden',
        retryable: false,
        details: { staged_operation_id: id, created_by: 'erin' },
      });
      expect((await show(self, id)).body.data.status).to.equal('staged');
    });

    it('allows self-approval when the org does not require a distinct approver', async () => {
      const { entry, books } = await paidInvoice({ require_distinct_approver: false });
      const self = await (await stack()).token(books.orgId, ['ledger:stage', 'staged:read', 'staged:approve'], 'erin');
      const id = await stageReversal(self, entry);
      const res = await approve(self, id);
      expect(res.status).to.equal(200);
      expect(res.body.data.status).to.equal('approved');
    });

    it('refuses to apply an operation that is not approved: 409 not_approved, nothing written', async () => {
      const { entry, who } = await paidInvoice();
      const id = await stageReversal(who.alice, entry);
      const res = await apply(who.bob, id);
      expect(res.status).to.equal(409);
      expect(res.body.error).to.deep.include({
        code: 'not_approved',
        details: { staged_operation_id: id, status: 'staged' },
      });
      expect(await doc('ledger_entries', entry)).to.include({ status: 'posted', version: 1 });
    });

    it('refuses approve after reject: 409 invalid_transition with the recorded status', async () => {
      const { entry, who } = await paidInvoice();
      const id = await stageReversal(who.alice, entry);
      const rejected = await reject(who.bob, id, 'wrong entry');
      expect(rejected.status).to.equal(200);
      expect(rejected.body.data.status).to.equal('rejected');
      const res = await approve(who.dave, id);
      expect(res.status).to.equal(409);
      expect(res.body.error).to.deep.include({
        code: 'invalid_transition',
        details: { staged_operation_id: id, status: 'rejected', action: 'approve' },
      });
      expect((await apply(who.bob, id)).body.error.code).to.equal('invalid_transition');
    });

    it('requires a note to reject: 400 validation_failed at /note', async () => {
      const { entry, who } = await paidInvoice();
      const id = await stageReversal(who.alice, entry);
      const res = await call('POST', `/api/v1/cli/staged-operations/${id}/reject`, { token: who.bob, body: {} });
      expect(res.status).to.equal(400);
      expect(res.body.error.errors).to.deep.equal([{ pointer: '/note', message: 'is required' }]);
    });

    it('applies once: a second apply answers the recorded result, 200, and writes nothing', async () => {
      const { entry, who } = await paidInvoice();
      const id = await stageReversal(who.alice, entry);
      await approve(who.bob, id);
      const first = await apply(who.bob, id);
      const second = await apply(who.alice, id);
      expect(first.status).to.equal(200);
      expect(second.status).to.equal(200);
      expect(second.body.data).to.deep.equal(first.body.data);
      expect(await doc('ledger_entries', entry)).to.include({ status: 'reversed', version: 2 });
      expect(await docs('ledger_entries', { reversal_of: entry })).to.have.length(1);
    });

    it('two parallel approvals: one transition, one audit event; the other answers invalid_transition', async () => {
      const { entry, who } = await paidInvoice();
      const id = await stageReversal(who.alice, entry);
      const answers = await Promise.all([approve(who.bob, id, 'bob'), approve(who.dave, id, 'dave')]);
      expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409]);
      const loser = answers.find((a) => a.status === 409)!;
      expect(loser.body.error).to.deep.include({
        code: 'invalid_transition',
        details: { staged_operation_id: id, status: 'approved', action: 'approve' },
      });
      const op = (await show(who.bob, id)).body.data;
      expect(op.history.filter((h: { to: string }) => h.to === 'approved')).to.have.length(1);
      expect(await docs('audit_events', { staged_operation_id: id, to: 'approved' })).to.have.length(1);
    });

    it('two parallel applies: applied once, both answer 200 with the same operation', async () => {
      const { entry, who } = await paidInvoice();
      const id = await stageReversal(who.alice, entry);
      await approve(who.bob, id);
      const answers = await Promise.all([apply(who.bob, id), apply(who.dave, id)]);
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200]);
      expect(answers[0].body.data).to.deep.equal(answers[1].body.data);
      expect(await docs('ledger_entries', { reversal_of: entry })).to.have.length(1);
      expect(await docs('audit_events', { staged_operation_id: id, to: 'applied' })).to.have.length(1);
    });

    it('reject releases the lock at once: the same reversal stages again as a new operation', async () => {
      const { entry, who } = await paidInvoice();
      const id = await stageReversal(who.alice, entry);
      expect(await locksOf(id)).to.be.greaterThan(0);
      await reject(who.bob, id, 'not now');
      expect(await locksOf(id)).to.equal(0);
      const again = await stageReversal(who.alice, entry);
      expect(again).to.not.equal(id);
    });

    it('replays approve with the same Idempotency-Key: the original answer, one transition', async () => {
      const { entry, who } = await paidInvoice();
      const id = await stageReversal(who.alice, entry);
      const first = await approve(who.bob, id, 'ok', { 'idempotency-key': `approve-${id}` });
      const replay = await approve(who.bob, id, 'ok', { 'idempotency-key': `approve-${id}` });
      expect(first.status).to.equal(200);
      expect(replay.status).to.equal(200);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body).to.deep.equal(first.body);
    });

    it('stale: an entry changed by a re-import between approve and apply → 409 stale_plan, nothing written, lock released', async () => {
      const { books, entry, link, who } = await paidInvoice();
      const id = await stageReversal(who.alice, entry);
      await approve(who.bob, id);
      const changed = books.file.ledger_entries.find((e) => e.id === entry)!;
      changed.lines = [
        { account: '1400', debit_minor: 12_500, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: 12_500 },
      ];
      await (await stack()).load(books.file);
      expect(await doc('ledger_entries', entry)).to.include({ version: 2 });

      const res = await apply(who.bob, id);
      expect(res.status).to.equal(409);
      expect(res.body.error).to.deep.include({
        code: 'stale_plan',
        retryable: false,
        details: {
          staged_operation_id: id,
          changed: [{ collection: 'ledger_entries', id: entry, expected_version: 1, actual_version: 2 }],
        },
      });
      expect(await doc('ledger_entries', entry)).to.include({ status: 'posted', reversed_by: null, version: 2 });
      expect(await doc('bank_links', link)).to.include({ version: 1 });
      expect(await docs('ledger_entries', { reversal_of: entry })).to.have.length(0);
      expect(await locksOf(id)).to.equal(0);
      const op = (await show(who.bob, id)).body.data;
      expect(op.status).to.equal('stale');
      expect(op.result.error.code).to.equal('stale_plan');
      expect((await apply(who.bob, id)).body.error.code).to.equal('stale_plan');
    });
  });
});
