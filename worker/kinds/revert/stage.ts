// Staging a revert (docs/design/staged-lifecycle.md "Reverts"): load the
// operation to revert, its apply journal and every record that journal wrote as
// it is now, plus what the reverted kind's hook reads; decide by the pure rule
// (shared/kinds/revert/plan.ts). The scope is checked here, not by the route:
// it is the one that stages the reverted kind, which only the stored operation
// tells (the API passes the token's scopes with the job).
import { utcDate } from '../../../shared/domain/dates.js';
import { mayView } from '../../../shared/domain/staged-transitions.js';
import type { StagedKind } from '../../../shared/domain/staged-kind.js';
import {
  decideRevert,
  type RevertBooks,
  type RevertPlan,
  type RevertRequest,
  type RevertSubject,
} from '../../../shared/kinds/revert/plan.js';
import { KINDS, stagedAmount } from '../../../shared/kinds/registry.js';
import { currentRecords, operationsNaming } from '../../../shared/storage/reverts.js';
import { readApplyJournal } from '../../../shared/storage/staged-operation-status.js';
import { findStagedOperation } from '../../../shared/storage/staged-operations.js';
import type { StagedOperationDoc } from '../../../shared/storage/collections.js';
import type { JobContext } from '../../job-context.js';
import { stagingJob, type StagingJobRunner } from '../../operation/staging-job.js';
import type { WorkerRevert } from './hook.js';

type Op = 'revert.stage';

interface Books {
  op: StagedOperationDoc | null;
  subject: RevertSubject | null;
  books: RevertBooks;
  request: Omit<RevertRequest, 'lock_date' | 'pending'>;
}

/** Statuses of a revert that count for already_reverted. */
const REVERTING = ['approved', 'applying', 'applied'] as const;

const NO_RECORDS: RevertBooks['records'] = new Map();

/** The staging job of `revert`, given the reverted kinds' hooks (worker/kinds.ts holds them). */
export function stageRevertWith(hookOf: (kind: StagedKind) => WorkerRevert | undefined): StagingJobRunner<Op> {
  return stagingJob<Op, Books, RevertPlan>({
    kind: 'revert',
    load: (ctx) => load(ctx, hookOf),
    decide: (books, org, { data }) =>
      decideRevert(
        books.subject,
        books.books,
        {
          ...books.request,
          lock_date: org.lock_date,
          pending: [],
          reversal_date: data.input.reversal_date ?? utcDate(data.requested_at),
        },
        data.input.id,
      ),
    context: (books, _plan, org) => {
      const op = books.op!;
      const amount = stagedAmount(op.kind, op.plan, op.context ?? {}, org.base_currency);
      return { reverted: { staged_operation_id: op._id, kind: op.kind, ...amount } };
    },
  });
}

async function load(ctx: JobContext<Op>, hookOf: (kind: StagedKind) => WorkerRevert | undefined): Promise<Books> {
  const { db, data } = ctx;
  const orgId = data.org_id;
  const found = await findStagedOperation(db, orgId, data.input.id);
  const op = found && mayView(found, { actor: data.actor, can_approve: data.may_review }) ? found : null;
  const request: Books['request'] = {
    scopes: data.scopes ?? [],
    required_scope: op ? (KINDS[op.kind].route.auth?.scope ?? null) : null,
    reverts: [],
    reverted_by: op?.reverted_by ?? null,
    rules: null,
  };
  if (!op) return { op, subject: null, books: { records: NO_RECORDS, extra: null }, request };
  const hook = hookOf(op.kind);
  const applied = op.status === 'applied' && op.apply !== undefined;
  const subject: RevertSubject = {
    id: op._id,
    kind: op.kind,
    status: op.status,
    plan: op.plan,
    preconditions: op.preconditions,
    applied_at: op.result?.status === 'applied' ? op.result.at : null,
    writes: applied && hook ? (await readApplyJournal(db, op)).writes : [],
  };
  if (!applied || !hook)
    return {
      op,
      subject,
      books: { records: NO_RECORDS, extra: null },
      request: { ...request, rules: hook?.rules ?? null },
    };
  const [reverts, records] = await Promise.all([
    operationsNaming(db, orgId, 'revert', 'id', op._id, REVERTING),
    currentRecords(db, orgId, subject.writes),
  ]);
  const extra = hook.load ? await hook.load(ctx, subject, records) : null;
  return {
    op,
    subject,
    books: { records, extra },
    request: { ...request, rules: hook.rules, reverts: reverts.map((r) => ({ id: r.id, status: r.status })) },
  };
}
