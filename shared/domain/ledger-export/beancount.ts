// A journal in beancount's syntax (docs/guide/ledger-exchange.md
// "beancount"): `bean-check FILE` reads it clean. One line at a time, so a
// caller can stream it. Pure.
import { dayAfter } from '../dates.js';
import { compareIds } from '../books.js';
import { decimalAmount, disagreements, type Journal, type Meta } from './journal.js';
import { headerLines, reconciledComment } from './header.js';

/** A string: whitespace runs are one space; `\` and `"` escaped. */
const str = (text: string): string =>
  `"${text.replace(/\s+/g, ' ').trim().replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const metaLines = (meta: Meta, indent: string): string[] => meta.map(([k, v]) => `${indent}${k}: ${str(v)}`);

export function* beancountLines(journal: Journal): Generator<string> {
  yield* headerLines(journal, disagreements(journal));
  for (const open of journal.opens) {
    yield `${open.date} open ${open.account}`;
    yield* metaLines(open.meta, '  ');
  }
  // A balance is asserted at the start of a day: the day after the reconciliation's.
  const assertions = [...journal.reconciled]
    .sort((a, b) => compareIds(a.date, b.date))
    .map((r) => ({ r, on: dayAfter(r.date) }));
  let next = 0;
  for (const tx of journal.transactions) {
    while (next < assertions.length && assertions[next]!.on <= tx.date) yield* assertion(assertions[next++]!);
    yield '';
    yield `${tx.date} * ${str(tx.payee)} ${str(tx.narration)}`;
    yield* metaLines(tx.meta, '  ');
    for (const p of tx.postings) {
      yield `  ${p.account}  ${decimalAmount(p.amount_minor, tx.currency)} ${tx.currency}`;
      yield* metaLines(p.meta, '    ');
    }
  }
  while (next < assertions.length) yield* assertion(assertions[next++]!);
}

function* assertion({ r, on }: { r: Journal['reconciled'][number]; on: string }): Generator<string> {
  yield '';
  if (r.statement_minor !== r.books_minor || !r.assertable) {
    yield reconciledComment(r);
    return;
  }
  yield `${on} balance ${r.account}  ${decimalAmount(r.statement_minor, r.currency)} ${r.currency}`;
  yield `  bank-account: ${str(r.bank_account_id)}`;
}
