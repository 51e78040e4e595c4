// A journal in hledger's syntax (docs/guide/ledger-exchange.md "hledger"):
// `hledger -f FILE check` reads it clean and `hledger bal` gives the trial
// balance. One line at a time, so a caller can stream it. Pure.
import { compareIds } from '../books.js';
import { decimalAmount, disagreements, type Journal, type Meta } from './journal.js';
import { headerLines, reconciledComment } from './header.js';

/** A description holds no `;` (a comment starts there) and a payee no `|` (it ends there); whitespace runs are one space. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
const description = (payee: string, narration: string): string => {
  const p = oneLine(payee).replace(/;/g, ',').replace(/\|/g, '/');
  const n = oneLine(narration).replace(/;/g, ',');
  return n ? `${p} | ${n}` : p;
};
/** A tag's value ends at a comma: commas become semicolons. */
const tags = (meta: Meta): string => meta.map(([k, v]) => `${k}:${oneLine(v).replace(/,/g, ';')}`).join(', ');

export function* hledgerLines(journal: Journal): Generator<string> {
  yield* headerLines(journal, disagreements(journal));
  yield 'decimal-mark .';
  yield '';
  for (const open of journal.opens) yield `account ${open.account}  ; type:${open.typeLetter}, ${tags(open.meta)}`;
  const assertions = [...journal.reconciled].sort((a, b) => compareIds(a.date, b.date));
  let next = 0;
  for (const tx of journal.transactions) {
    // A reconciled balance is asserted after every transaction of its day.
    while (next < assertions.length && assertions[next]!.date < tx.date) yield* assertion(assertions[next++]!);
    yield '';
    yield `${tx.date} * ${description(tx.payee, tx.narration)}  ; ${tags(tx.meta)}`;
    for (const p of tx.postings)
      yield `    ${p.account}  ${decimalAmount(p.amount_minor, tx.currency)} ${tx.currency}${p.meta.length ? `  ; ${tags(p.meta)}` : ''}`;
  }
  while (next < assertions.length) yield* assertion(assertions[next++]!);
}

function* assertion(r: Journal['reconciled'][number]): Generator<string> {
  yield '';
  if (r.statement_minor !== r.books_minor || !r.assertable) {
    yield reconciledComment(r);
    return;
  }
  yield `${r.date} * Reconciled balance  ; bank-account:${r.bank_account_id}`;
  yield `    ${r.account}  0 ${r.currency} = ${decimalAmount(r.statement_minor, r.currency)} ${r.currency}`;
}
