// One transaction of `hledger print -x -O json` (hledger 1.25) as a read
// transaction (docs/guide/ledger-exchange.md "Import"). Amounts are read from
// hledger's decimal mantissa and places, never its floatingPoint. Pure.
import { commentTags } from './scan.js';
import type { LedgerRefusal, ReadAmount, ReadPosting, ReadTransaction } from './read-journal.js';

interface HledgerAmount {
  acommodity: string;
  aprice: unknown;
  aquantity: { decimalMantissa: number; decimalPlaces: number };
}

interface HledgerPosting {
  paccount: string;
  pamount: HledgerAmount[];
  pcomment: string;
  ptype: string;
  pbalanceassertion: { baamount: HledgerAmount } | null;
}

export interface HledgerTransaction {
  tdate: string;
  tdescription: string;
  ttags: Array<[string, string]>;
  tpostings: HledgerPosting[];
  tsourcepos: Array<{ sourceLine: number }>;
}

function amountOf(a: HledgerAmount, line: number): ReadAmount | LedgerRefusal {
  const { decimalMantissa: m, decimalPlaces: places } = a.aquantity;
  if (!Number.isSafeInteger(m) || !Number.isSafeInteger(places))
    return {
      line,
      code: 'ledger_amount_range',
      message: `an amount in ${a.acommodity} is beyond the amounts the books hold`,
    };
  return { currency: a.acommodity, mantissa: String(m), places };
}

/**
 * The transaction, or its refusals. `pricedIn(from, to)` says whether the
 * scan found a written price on those lines: hledger turns a transaction in
 * two currencies into one with an inferred price, and a written price is
 * refused (with its own line) by the scan already.
 */
export function hledgerTransaction(
  t: HledgerTransaction,
  pricedIn: (from: number, to: number) => boolean,
): ReadTransaction | LedgerRefusal[] {
  const line = t.tsourcepos[0]?.sourceLine ?? 0;
  const end = t.tsourcepos[1]?.sourceLine ?? line;
  const refusals: LedgerRefusal[] = [];
  const postings: ReadPosting[] = [];
  const currencies = new Set(t.tpostings.flatMap((p) => p.pamount.map((a) => a.acommodity)));
  for (const p of t.tpostings) {
    if (p.ptype !== 'RegularPosting') {
      refusals.push({
        line,
        code: 'ledger_virtual_posting',
        message: `a virtual posting on ${p.paccount}: the books hold only balanced, real postings`,
      });
      continue;
    }
    if (p.pamount.some((a) => a.aprice !== null) || p.pamount.length > 1) {
      if (!pricedIn(line, end))
        refusals.push({
          line,
          code: 'ledger_two_currencies',
          message: 'the transaction is in two currencies; the books keep one currency per transaction',
        });
      continue;
    }
    const written = p.pamount[0];
    const amount: ReadAmount | LedgerRefusal = written
      ? amountOf(written, line)
      : { currency: [...currencies][0] ?? p.pbalanceassertion?.baamount.acommodity ?? '', mantissa: '0', places: 0 };
    if ('code' in amount) {
      refusals.push(amount);
      continue;
    }
    const posting: ReadPosting = { account: p.paccount, amount, meta: commentTags(p.pcomment) };
    if (p.pbalanceassertion) {
      const asserted = amountOf(p.pbalanceassertion.baamount, line);
      if ('code' in asserted) refusals.push(asserted);
      else posting.assertion = asserted;
    }
    postings.push(posting);
  }
  if (refusals.length > 0) return refusals;
  const bar = t.tdescription.indexOf('|');
  const meta: Record<string, string> = {};
  for (const [k, v] of t.ttags) meta[k] ??= v.trim();
  return {
    line,
    date: t.tdate,
    payee: (bar < 0 ? t.tdescription : t.tdescription.slice(0, bar)).trim(),
    narration: bar < 0 ? '' : t.tdescription.slice(bar + 1).trim(),
    meta,
    postings,
  };
}
