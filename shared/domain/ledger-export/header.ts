// The lines both syntaxes open with (docs/guide/ledger-exchange.md "The
// summary"): what the file is, and every bank account whose balance at its
// last reconciliation the books do not give. `;` starts a comment in both.
import { decimalAmount, type Journal, type JournalReconciled } from './journal.js';

export function* headerLines(journal: Journal, differing: readonly JournalReconciled[]): Generator<string> {
  yield `; bookstage books of ${journal.org_id}, ${journal.through ? `through ${journal.through}` : 'every record'}`;
  if (differing.length === 0) {
    yield '; every reconciled balance agrees with the books';
  } else {
    yield '; reconciled balances the books do not give (transactions dated inside a reconciled period but left out of it):';
    for (const r of differing) yield `;   ${summary(r)}`;
  }
  yield '';
}

export function reconciledComment(r: JournalReconciled): string {
  return r.statement_minor !== r.books_minor
    ? `; ${summary(r)}`
    : `; ${r.bank_account_id} reconciled through ${r.date} at ${money(r.statement_minor, r.currency)}, before its first posting`;
}

function summary(r: JournalReconciled): string {
  return `${r.bank_account_id} reconciled through ${r.date}: statement ${money(r.statement_minor, r.currency)}, books ${money(r.books_minor, r.currency)}`;
}

const money = (minor: number, currency: string): string => `${decimalAmount(minor, currency)} ${currency}`;
