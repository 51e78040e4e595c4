// The review and apply of staged operations (docs/design/staged-lifecycle.md):
// list and show read directly (one indexed collection, no computation: see
// the doc for why not through the read queue); approve, reject and apply are
// jobs on the staging queue, with the staging calls' Idempotency-Key, wait,
// 202 and job polling rules (api/stage-handler.ts).
import { Router, type Response } from 'express';
import type { Db } from 'mongodb';
import { successEnvelope } from '../../shared/contract/envelope.js';
import { AppError } from '../../shared/errors.js';
import type { StageOperation } from '../../shared/queue/stage-jobs.js';
import {
  applyBodySchema,
  approveBodySchema,
  rejectBodySchema,
  STAGED_LIST_DEFAULT_LIMIT,
  STAGED_LIST_NUMERIC_PARAMS,
  stagedListQuerySchema,
  stagedOperationParamsSchema,
  type StagedListQueryParams,
} from '../../shared/schemas/staged-operations.js';
import { compile, type Validator } from '../../shared/schemas/validator.js';
import { mayView } from '../../shared/domain/staged-transitions.js';
import { stagedOperationDetail } from '../../shared/storage/staged-operation-view.js';
import { findStagedOperation } from '../../shared/storage/staged-operations.js';
import { findOrg } from '../../shared/storage/books-read.js';
import { listStagedOperations, type StagedListPosition } from '../../shared/storage/staged-operations-list.js';
import { findApprovals, mergeApprovals, withApprovalsAll } from '../../shared/storage/approvals.js';
import { locals } from '../context.js';
import { openCursor, sealCursor, type CursorBinding } from '../cursor.js';

import { queryObject } from '../query-string.js';
import { runStage, type StageDeps } from '../stage-handler.js';
import { mountRoute } from './mount.js';

const CURSOR_LIST = 'staged_operations';
const validateParams = compile<{ id: string }>(stagedOperationParamsSchema, '/path');
const validateQuery = compile<StagedListQueryParams>(stagedListQuerySchema, '/query');
const validateApprove = compile<{ note?: string }>(approveBodySchema);
const validateReject = compile<{ note: string }>(rejectBodySchema);
const validateApply = compile<Record<string, never>>(applyBodySchema);

/** What a list cursor carries: the position and the filters it was issued for. */
interface ListCursor {
  after: StagedListPosition;
  filters: Pick<StagedListQueryParams, 'status' | 'kind' | 'created_by'>;
}

/**
 * The organisation's base currency: an operation's amount is in it where its
 * kind has none (docs/reference/http-api.md "Amount of each kind"). Read beside
 * the operations, not after them. A token's org is gone only if deleted under it.
 */
async function baseCurrency(db: Db, orgId: string): Promise<string> {
  const org = await findOrg(db, orgId);
  if (!org) throw new AppError('not_found', { details: { resource: 'Organisation', id: orgId } });
  return org.base_currency;
}

/** `cursorSecret` is config CURSOR_SECRET; absent only in apps built without it (then paging answers 503). */
export function stagedOperationRoutes(db: Db, deps: StageDeps, cursorSecret: string | undefined): Router {
  const router = Router();

  mountRoute(router, db, 'staged_operations.list', async (req, res) => {
    const query = validateQuery(queryObject(req.query, STAGED_LIST_NUMERIC_PARAMS));
    if (!query.ok) throw new AppError('validation_failed', { errors: query.errors });
    const auth = locals(res).auth!;
    const { status, kind, created_by: createdBy, limit, cursor } = query.value;
    const filters = { status, kind, created_by: createdBy };
    const binding: CursorBinding = { list: CURSOR_LIST, org_id: auth.org_id };
    let after: StagedListPosition | null = null;
    if (cursor !== undefined) {
      if (!cursorSecret)
        throw new AppError('service_unavailable', { details: { reason: 'cursor_secret_not_configured' } });
      after = positionOf(openCursor(cursorSecret, binding, cursor), filters);
    }
    // Only what the caller may see: without staged:approve, only its own operations.
    const canApprove = auth.scopes.includes('staged:approve');
    const visibleCreator = canApprove ? createdBy : auth.actor;
    const data = { items: [] as unknown[], next_cursor: null as string | null };
    if (canApprove || createdBy === undefined || createdBy === auth.actor) {
      const [page, base] = await Promise.all([
        listStagedOperations(db, {
          org_id: auth.org_id,
          status,
          kind,
          created_by: visibleCreator,
          after,
          limit: limit ?? STAGED_LIST_DEFAULT_LIMIT,
        }),
        baseCurrency(db, auth.org_id),
      ]);
      // Items without their context (show has it): a page of contexts would be large. Each with its approvals (one read for the page).
      data.items = (await withApprovalsAll(db, auth.org_id, page.items)).map((doc) => {
        const { context: _context, ...item } = stagedOperationDetail(doc, base);
        return item;
      });
      if (page.next && cursorSecret)
        data.next_cursor = sealCursor(cursorSecret, binding, {
          after: page.next,
          filters: clean(filters),
        } satisfies ListCursor);
    }
    res.json(successEnvelope('staged_operations.list', locals(res).requestId, data));
  });

  mountRoute(router, db, 'staged_operations.show', async (req, res) => {
    const id = pathId(req.params.id);
    const auth = locals(res).auth!;
    // The operation's approvals are read beside it (shared/storage/approvals.ts).
    const [doc, base, approvals] = await Promise.all([
      findStagedOperation(db, auth.org_id, id),
      baseCurrency(db, auth.org_id),
      findApprovals(db, auth.org_id, [id]),
    ]);
    if (!doc || !mayView(doc, { actor: auth.actor, can_approve: auth.scopes.includes('staged:approve') }))
      throw notFound(id);
    res.json(
      successEnvelope(
        'staged_operations.show',
        locals(res).requestId,
        stagedOperationDetail(mergeApprovals(doc, approvals), base),
      ),
    );
  });

  const lifecycle = <B extends object>(action: 'approve' | 'reject' | 'apply', validate: Validator<B>) => {
    const name: StageOperation = `staged_operations.${action}`;
    mountRoute(router, db, name, async (req, res) => {
      const params = validateParams({ id: req.params.id });
      const body = validate(req.body === undefined ? {} : req.body);
      if (!params.ok || !body.ok)
        throw new AppError('validation_failed', {
          errors: [...(params.ok ? [] : params.errors), ...(body.ok ? [] : body.errors)],
        });
      await runLifecycle(deps, res, name, params.value.id, body.value);
    });
  };
  lifecycle('approve', validateApprove);
  lifecycle('reject', validateReject);
  lifecycle('apply', validateApply);
  return router;
}

function runLifecycle(deps: StageDeps, res: Response, name: StageOperation, id: string, body: object): Promise<void> {
  const auth = locals(res).auth!;
  // The worker decides visibility (creator or staged:approve) and answers 404 like show does.
  return runStage(deps, res, name, {
    staged_operation_id: id,
    ...body,
    can_approve: auth.scopes.includes('staged:approve'),
    // Whether the approver counts as an agent (docs/design/staged-lifecycle.md "Approval policies").
    agent: auth.agent,
  });
}

function pathId(raw: unknown): string {
  const params = validateParams({ id: raw });
  if (!params.ok) throw new AppError('validation_failed', { errors: params.errors });
  return params.value.id;
}

const notFound = (id: string) => new AppError('not_found', { details: { resource: 'Staged operation', id } });

/** Filters without their absent members, so that a cursor compares equal to the query it came from. */
function clean(filters: ListCursor['filters']): ListCursor['filters'] {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined));
}

/** The position of a cursor issued to this organisation for the same filters; else 400 invalid_cursor. */
function positionOf(opened: unknown, filters: ListCursor['filters']): StagedListPosition {
  const cursor = opened as Partial<ListCursor> | null;
  const after = cursor?.after;
  const same = cursor && JSON.stringify(cursor.filters ?? null) === JSON.stringify(clean(filters));
  if (!cursor || !same || !after || typeof after.created_at !== 'string' || typeof after.id !== 'string') {
    throw new AppError('invalid_cursor', { details: { parameter: 'cursor' } });
  }
  return { created_at: after.created_at, id: after.id };
}
