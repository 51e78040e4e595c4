// Load → decide → write for a ledger reversal (DESIGN §5.3).
import { decideReversal, reversalScopeKey } from '../../shared/domain/reversal-plan.js';
import { compareIds } from '../../shared/domain/books.js';
import { utcDate } from '../../shared/dates.js';
import { AppError } from '../../shared/errors.js';
import { findEntry, findLinks, findOrg, findTransactionsByIds } from '../../shared/storage/books-read.js';
import { liveHolders, lockKeys } from '../../shared/storage/scope-locks.js';
import type { JobOutcome } from '../../shared/queue/stage-jobs.js';
import type { JobContext } from '../job-context.js';
import { answerDecision, operationIdFor } from '../staging/commit-staged.js';

interface ReversalInput { entry_id: string; reversal_date?: string; reason?: string }

export async function stageLedgerReversal(ctx: JobContext): Promise<JobOutcome> {
  const { db, data, now } = ctx;
  const input = data.input as unknown as ReversalInput;
  const orgId = data.org_id;
  const org = await findOrg(db, orgId);
  if (!org) throw new AppError('not_found', { details: { resource: 'Organisation', id: orgId } });

  const entry = await findEntry(db, orgId, input.entry_id);
  const links = entry ? await findLinks(db, orgId, { ledger_entry_id: entry.id }) : [];
  const transactionIds = [...new Set(links.map((l) => l.bank_transaction_id))].sort(compareIds);
  const transactions = await findTransactionsByIds(db, orgId, transactionIds);
  const keys = lockKeys(orgId, { scope_key: reversalScopeKey(input.entry_id), entry_ids: [input.entry_id], transaction_ids: transactionIds });
  const pending = await liveHolders(db, orgId, keys, now, operationIdFor(ctx));

  const decision = decideReversal(
    { org, entry, links, transactions, pending },
    { entry_id: input.entry_id, reversal_date: input.reversal_date ?? utcDate(data.requested_at), reason: input.reason ?? null },
  );
  if (!decision.ok) throw decision.error;
  return answerDecision(ctx, 'ledger_reversal', decision.value);
}
