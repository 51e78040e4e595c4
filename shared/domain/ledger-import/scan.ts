// What an import reads from the file's lines itself, before and beside the
// tool (docs/guide/ledger-exchange.md "Import"): the refusals the tools do not
// report with a line (includes, which they follow; hledger prices and lots,
// which it converts or ignores) and hledger's account directives with their
// tags, which its JSON does not print. One line at a time, so the file is read
// in bounded memory. Pure.
import type { LedgerRefusal, ReadAccount } from './read-journal.js';

export type LedgerFormat = 'hledger' | 'beancount';

/** hledger's tags in a comment: `name:value`, the value up to a comma, trimmed. */
export function commentTags(comment: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const m of comment.matchAll(/([^\s,:]+):([^,\n]*)/g)) tags[m[1]!] ??= m[2]!.trim();
  return tags;
}

export class JournalScan {
  readonly refusals: LedgerRefusal[] = [];
  readonly accounts: ReadAccount[] = [];
  /** Lines of hledger postings that carry a price (`@`, `@@`). */
  readonly priceLines: number[] = [];
  private line = 0;
  private account: ReadAccount | null = null;

  constructor(private readonly format: LedgerFormat) {}

  push(text: string): void {
    this.line += 1;
    const line = this.line;
    if (/^\s*!?include\s/.test(text)) {
      this.refuse('ledger_include', 'include: the books are read from one file; put the included file in it');
      return;
    }
    if (this.format === 'beancount') return;
    // An account directive's tags may go on on indented comment lines.
    if (this.account && /^[ \t]+;/.test(text)) {
      Object.assign(this.account.meta, { ...commentTags(text.replace(/^[ \t]+;/, '')), ...this.account.meta });
      return;
    }
    this.account = null;
    const directive = /^account[ \t]+(.+?)(?:(?: {2,}|\t)\s*;(.*))?\s*$/.exec(text);
    if (directive) {
      this.account = { name: directive[1]!.trim(), line, meta: commentTags(directive[2] ?? '') };
      this.accounts.push(this.account);
      return;
    }
    if (/^P[ \t]/.test(text)) {
      this.refuse('ledger_price', 'a market price (P): the books hold no prices');
      return;
    }
    const posting = /^[ \t]+([^;#*\s].*)$/.exec(text);
    if (!posting) return;
    const body = posting[1]!.split(';')[0]!;
    if (body.includes('@')) {
      this.priceLines.push(line);
      this.refuse('ledger_price', 'a posting with a price (@): the books hold no prices');
    }
    if (body.includes('{')) this.refuse('ledger_lot', 'a posting with a lot cost ({…}): the books hold no lots');
  }

  private refuse(code: LedgerRefusal['code'], message: string): void {
    this.refusals.push({ line: this.line, code, message });
  }
}
