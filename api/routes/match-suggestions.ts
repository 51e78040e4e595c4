// Match suggestions of a bank transaction and their declines
// (docs/reference/http-api.md §8.2). The suggestions rank over the whole
// organisation, so they are a read job of the worker
// (worker/jobs/match-suggestions-list.ts); a decline is one insert by `_id`
// per entry or document (shared/storage/match-suggestions.ts), nothing to
// compute. Neither stages nor applies anything.
import { Router, type Response } from 'express';
import type { Db } from 'mongodb';
import { AppError } from '../../shared/errors.js';
import { bankTransactionParamsSchema } from '../../shared/schemas/books-read.js';
import {
  MATCH_SUGGESTIONS_DEFAULT_LIMIT,
  matchDeclineBodySchema,
  matchSuggestionsQuerySchema,
  type MatchDeclineBody,
  type MatchSuggestionsQuery,
} from '../../shared/schemas/match-suggestions.js';
import { compile, type Validator } from '../../shared/schemas/validator.js';
import { findEntriesByIds } from '../../shared/storage/books-read.js';
import { findInboxDocument, findTransaction } from '../../shared/storage/books-pages.js';
import { countDeclines, insertDeclines } from '../../shared/storage/match-suggestions.js';
import { locals } from '../context.js';
import { dataToHttp, send } from '../outcome.js';
import { queryObject } from '../query-string.js';
import { runRead, type ReadDeps } from '../read-handler.js';
import { mountRoute } from './mount.js';

const validParams = compile<{ bank_transaction_id: string }>(bankTransactionParamsSchema, '/path');
const validQuery = compile<MatchSuggestionsQuery>(matchSuggestionsQuerySchema, '/query');
const validBody = compile<MatchDeclineBody>(matchDeclineBodySchema);

function valid<T>(validate: Validator<T>, value: unknown): T {
  const checked = validate(value);
  if (!checked.ok) throw new AppError('validation_failed', { errors: checked.errors });
  return checked.value;
}

/** The caller's organisation's transaction, or 404 (another organisation's is not found either). */
async function ownTransaction(db: Db, orgId: string, id: string): Promise<void> {
  if (!(await findTransaction(db, orgId, id)))
    throw new AppError('not_found', { details: { resource: 'Bank transaction', id } });
}

export function matchSuggestionRoutes(db: Db, reads: ReadDeps | undefined): Router {
  const router = Router();
  const orgOf = (res: Response): string => locals(res).auth!.org_id;

  mountRoute(router, db, 'match_suggestions.list', async (req, res) => {
    const { bank_transaction_id } = valid(validParams, { bank_transaction_id: req.params.bank_transaction_id });
    const query = valid(validQuery, queryObject(req.query, ['limit']));
    await ownTransaction(db, orgOf(res), bank_transaction_id);
    if (!reads) throw new AppError('service_unavailable', { details: { reason: 'read_queue_not_configured' } });
    const data = await runRead(reads, res, 'match_suggestions.list', {
      bank_transaction_id,
      limit: query.limit ?? MATCH_SUGGESTIONS_DEFAULT_LIMIT,
    });
    send(res, dataToHttp('match_suggestions.list', locals(res).requestId, data));
  });

  mountRoute(router, db, 'match_suggestions.decline', async (req, res) => {
    // Path, then body, then the records: a request that cannot be valid is refused before any read.
    const params = validParams({ bank_transaction_id: req.params.bank_transaction_id });
    const body = validBody(req.body ?? {});
    if (!params.ok || !body.ok)
      throw new AppError('validation_failed', {
        errors: [...(params.ok ? [] : params.errors), ...(body.ok ? [] : body.errors)],
      });
    const orgId = orgOf(res);
    const transactionId = params.value.bank_transaction_id;
    const entryIds = body.value.ledger_entry_ids ?? [];
    const documentId = body.value.document_id ?? null;
    const [, entries, document] = await Promise.all([
      ownTransaction(db, orgId, transactionId),
      findEntriesByIds(db, orgId, entryIds),
      documentId === null ? null : findInboxDocument(db, orgId, documentId),
    ]);
    const found = new Set(entries.map((e) => e.id));
    const missing = entryIds.find((id) => !found.has(id));
    if (missing !== undefined) throw new AppError('not_found', { details: { resource: 'Ledger entry', id: missing } });
    if (documentId !== null && !document)
      throw new AppError('not_found', { details: { resource: 'Inbox document', id: documentId } });
    const auth = locals(res).auth!;
    await insertDeclines(
      db,
      orgId,
      transactionId,
      { ledger_entry_ids: entryIds, document_id: documentId },
      { actor: auth.actor, at: new Date().toISOString() },
    );
    send(
      res,
      dataToHttp('match_suggestions.decline', locals(res).requestId, {
        bank_transaction_id: transactionId,
        declined: await countDeclines(db, orgId, transactionId),
      }),
    );
  });
  return router;
}
