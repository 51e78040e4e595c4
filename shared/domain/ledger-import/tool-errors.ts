// A check hledger or beancount failed, as a refusal with its documented code
// (docs/guide/ledger-exchange.md "Refusals"): the tool's own message, the line
// it names. Pure.
import type { LedgerRefusal } from './read-journal.js';

export function toolRefusal(message: string, line: number): LedgerRefusal {
  const text = message.trim();
  if (/could not balance|does not balance/i.test(text)) return { line, code: 'ledger_unbalanced', message: text };
  if (/unknown account|not opened|inactive account/i.test(text))
    return { line, code: 'ledger_account_not_opened', message: text };
  if (/balance assertion|balance failed/i.test(text)) return { line, code: 'ledger_assertion', message: text };
  return { line, code: 'ledger_syntax', message: text };
}

/** hledger's error output (`hledger: "FILE" (lines 1-3)` or `FILE:3:5:`) as one refusal. */
export function hledgerErrorRefusal(stderr: string): LedgerRefusal {
  const line = Number(/\(lines? (\d+)/.exec(stderr)?.[1] ?? /:(\d+):(?:\d+:)?/.exec(stderr)?.[1] ?? 0);
  const text = stderr.replace(/^hledger:\s*/, '').trim();
  return toolRefusal(text.split('\n').slice(0, 8).join('\n'), line);
}
