// Match suggestions for one bank transaction (docs/reference/http-api.md §8.2):
// a ranking over the organisation's open entries and documents, so it is
// computed here rather than in the API. Read only: it stages nothing. The
// ranking is the domain's (shared/domain/match-suggestions.ts); the reads are
// projected (shared/storage/match-suggestions.ts).
import type { Db } from 'mongodb';
import { latestNames, transactionView } from '../../shared/domain/book-reads.js';
import { candidateDocument, rankSuggestions } from '../../shared/domain/match-suggestions.js';
import { remainderMinor } from '../../shared/domain/books.js';
import type { MatchSuggestionList } from '../../shared/contract/reads.js';
import type { MatchSuggestionsInput } from '../../shared/queue/read-jobs.js';
import { AppError } from '../../shared/errors.js';
import { findLinks } from '../../shared/storage/books-read.js';
import { findTransaction } from '../../shared/storage/books-pages.js';
import { namingTransactions } from '../../shared/storage/books-whole.js';
import { findDeclines, readOpenDocuments } from '../../shared/storage/match-suggestions.js';
import { readCandidateEntries } from '../../shared/storage/entry-open-amounts.js';

export async function listMatchSuggestions(
  db: Db,
  orgId: string,
  input: MatchSuggestionsInput,
): Promise<MatchSuggestionList> {
  const id = input.bank_transaction_id;
  const [transaction, links, declines] = await Promise.all([
    findTransaction(db, orgId, id),
    findLinks(db, orgId, 'bank_transaction_id', [id]),
    findDeclines(db, orgId, id),
  ]);
  if (!transaction) throw new AppError('not_found', { details: { resource: 'Bank transaction', id } });
  const remaining = Math.max(0, remainderMinor(transaction, links));
  // The candidates only (§8.2 "Candidates"): the open entries of the transaction's currency and direction nearest its
  // booking date, of its remaining amount, and of its counterparty, as stored (docs/design/entry-open-amounts.md),
  // and the open documents of its currency and remaining amount.
  const [open, documents] =
    remaining > 0 && transaction.amount_minor !== 0
      ? await Promise.all([
          readCandidateEntries(db, orgId, {
            currency: transaction.currency,
            direction: transaction.amount_minor > 0 ? 'in' : 'out',
            remaining_minor: remaining,
            counterparty_id: transaction.counterparty_id,
            booking_date: transaction.booking_date,
          }),
          readOpenDocuments(db, orgId, transaction.currency, remaining),
        ])
      : [[], []];
  // An entry this transaction is linked to already is no candidate: a match of that pair is refused (already_linked).
  const linkedHere = new Set(links.map((l) => l.ledger_entry_id));
  const entries = open.filter((e) => !linkedHere.has(e.id));
  // The counterparty signal compares the bank's name with each other counterparty's name as the counterparty read gives it.
  const others = transaction.counterparty_name
    ? [...new Set(entries.map((e) => e.counterparty_id))].filter((cp) => cp !== transaction.counterparty_id)
    : [];
  const names = latestNames(await namingTransactions(db, orgId, others));
  return {
    transaction: transactionView(transaction, links),
    remaining_minor: remaining,
    suggestions: rankSuggestions({
      transaction,
      remaining_minor: remaining,
      entries,
      documents: documents.map(candidateDocument),
      counterparty_names: names,
      declined_entry_ids: declines.entry_ids,
      declined_document_ids: declines.document_ids,
      limit: input.limit,
    }),
    declined: declines.count,
  };
}
