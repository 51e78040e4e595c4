// One line of scripts/beancount/read_json.py (beancount's own loader) into the
// read journal (docs/guide/ledger-exchange.md "Import"). Pure.
import { dayBefore } from '../dates.js';
import { toolRefusal } from './tool-errors.js';
import type { LedgerRefusal, ReadAmount, ReadJournal } from './read-journal.js';

export type BeancountRecord =
  | { t: 'error'; line: number; message: string }
  | { t: 'open'; line: number; name: string; meta: Record<string, string> }
  | {
      t: 'txn';
      line: number;
      date: string;
      payee: string;
      narration: string;
      meta: Record<string, string>;
      postings: Array<{
        account: string;
        line: number;
        amount: ReadAmount;
        cost: boolean;
        price: boolean;
        meta: Record<string, string>;
      }>;
    }
  | { t: 'balance'; line: number; date: string; account: string; amount: ReadAmount }
  | { t: 'price'; line: number };

/** Add the record to the journal, or its refusals to `refusals`. */
export function addBeancountRecord(journal: ReadJournal, refusals: LedgerRefusal[], r: BeancountRecord): void {
  switch (r.t) {
    case 'error':
      refusals.push(toolRefusal(r.message, r.line));
      return;
    case 'open':
      journal.accounts.push({ name: r.name, line: r.line, meta: r.meta });
      return;
    case 'price':
      refusals.push({ line: r.line, code: 'ledger_price', message: 'a price directive: the books hold no prices' });
      return;
    case 'balance':
      // A beancount balance holds at the start of its day: the books' balance at the end of the day before.
      journal.balances.push({ line: r.line, date: dayBefore(r.date), account: r.account, amount: r.amount });
      return;
    case 'txn': {
      let bad = false;
      for (const p of r.postings) {
        if (p.cost) {
          refusals.push({
            line: p.line,
            code: 'ledger_lot',
            message: 'a posting held at cost ({…}): the books hold no lots',
          });
          bad = true;
        }
        if (p.price) {
          refusals.push({
            line: p.line,
            code: 'ledger_price',
            message: 'a posting with a price (@): the books hold no prices',
          });
          bad = true;
        }
      }
      if (bad) return;
      journal.transactions.push({
        line: r.line,
        date: r.date,
        payee: r.payee,
        narration: r.narration,
        meta: r.meta,
        postings: r.postings.map((p) => ({ account: p.account, amount: p.amount, meta: p.meta })),
      });
    }
  }
}
