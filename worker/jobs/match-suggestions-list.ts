// Match suggestions for one bank transaction (docs/reference/http-api.md §8.2):
// a ranking over the organisation's open entries and documents, so it is
// computed here rather than in the API. Read only: it stages nothing. The
// ranking is the domain's (shared/domain/match-suggestions.ts); the reads are
// projected (shared/storage/match-suggestions.ts).
import type { Db } from 'mongodb';
import { latestNames, transactionView } from '../../shared/domain/book-reads.js';
import { candidateDocument, candidateEntries, rankSuggestions } from '../../shared/domain/match-suggestions.js';
import { remainderMinor } from '../../shared/domain/books.js';
import type { MatchSuggestionList } from '../../shared/contract/reads.js';
import type { MatchSuggestionsInput } from '../../shared/queue/read-jobs.js';
import { AppError } from '../../shared/errors.js';
import { findLinks, findOrg } from '../../shared/storage/books-read.js';
import { findTransaction } from '../../shared/storage/books-pages.js';
import { namingTransactions } from '../../shared/storage/books-whole.js';
import { findDeclines, readSuggestionBooks } from '../../shared/storage/match-suggestions.js';

export async function listMatchSuggestions(
  db: Db,
  orgId: string,
  input: MatchSuggestionsInput,
): Promise<MatchSuggestionList> {
  const id = input.bank_transaction_id;
  const [org, transaction, links, books, declines] = await Promise.all([
    findOrg(db, orgId),
    findTransaction(db, orgId, id),
    findLinks(db, orgId, 'bank_transaction_id', [id]),
    readSuggestionBooks(db, orgId),
    findDeclines(db, orgId, id),
  ]);
  if (!transaction) throw new AppError('not_found', { details: { resource: 'Bank transaction', id } });
  const remaining = Math.max(0, remainderMinor(transaction, links));
  // An entry this transaction is linked to already is no candidate: a match of that pair is refused (already_linked).
  const linkedHere = new Set(links.map((l) => l.ledger_entry_id));
  const entries = candidateEntries(transaction, books.entries, books.links, org?.settlement_accounts ?? []).filter(
    (e) => !linkedHere.has(e.id),
  );
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
      documents: books.documents.map(candidateDocument),
      counterparty_names: names,
      declined_entry_ids: declines.entry_ids,
      declined_document_ids: declines.document_ids,
      limit: input.limit,
    }),
    declined: declines.count,
  };
}
