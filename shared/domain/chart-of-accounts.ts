// The chart of accounts (docs/guide/importing-books.md "Chart of accounts"):
// an organisation's ledger account codes, each with a name, a type and
// whether new entries may still post to it. Pure rules; the chart is stored
// by shared/storage/ledger-accounts.ts.
import type { FieldError } from '../errors.js';
import type { BooksFile } from './books-file.js';
import { compareIds, type LedgerAccount } from './books.js';

export { LEDGER_ACCOUNT_TYPES, type LedgerAccount, type LedgerAccountType } from './books.js';

/** The code format: no spaces and no `:`, so that `ORG:CODE` names one stored account. */
export const LEDGER_ACCOUNT_CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
export const LEDGER_ACCOUNT_CODE_MAX_LENGTH = 32;
export const LEDGER_ACCOUNT_NAME_MAX_LENGTH = 200;
/** The most accounts one books file may list. */
export const LEDGER_ACCOUNTS_MAX = 5000;

/**
 * The codes of `codes` a new entry may not post to under `chart`: those the
 * chart lacks or holds inactive, each once, in byte order. An organisation
 * without a chart (an empty one) accepts any code.
 */
export function unknownAccounts(chart: readonly LedgerAccount[], codes: readonly string[]): string[] {
  if (chart.length === 0) return [];
  const active = new Set(chart.filter((a) => a.active).map((a) => a.code));
  return [...new Set(codes.filter((code) => !active.has(code)))].sort(compareIds);
}

/** Where a books file names an account code: a JSON pointer into the file and the code. */
export interface CodeUse {
  pointer: string;
  code: string;
}

/**
 * Every account code a books file uses: its entries' lines, the org's
 * settlement accounts and each bank account's `ledger_account`, in file order.
 */
export function accountCodesUsed(file: BooksFile): CodeUse[] {
  const uses: CodeUse[] = [];
  file.org.settlement_accounts.forEach((code, i) => uses.push({ pointer: `/org/settlement_accounts/${i}`, code }));
  file.bank_accounts.forEach((account, i) =>
    uses.push({ pointer: `/bank_accounts/${i}/ledger_account`, code: account.ledger_account }),
  );
  file.ledger_entries.forEach((entry, i) =>
    entry.lines.forEach((line, j) =>
      uses.push({ pointer: `/ledger_entries/${i}/lines/${j}/account`, code: line.account }),
    ),
  );
  return uses;
}

/**
 * The codes `uses` names that `chartCodes` lacks, one problem per code, at
 * its first use, in byte order of the codes. Inactive accounts cover the
 * codes they hold: a file loads the entries already booked on them. An empty
 * `chartCodes` (no chart) covers everything.
 */
export function uncoveredCodes(chartCodes: ReadonlySet<string>, uses: readonly CodeUse[]): FieldError[] {
  if (chartCodes.size === 0) return [];
  const missing = new Map<string, { pointer: string; count: number }>();
  for (const { pointer, code } of uses) {
    if (chartCodes.has(code)) continue;
    const seen = missing.get(code);
    if (seen) seen.count += 1;
    else missing.set(code, { pointer, count: 1 });
  }
  return [...missing.entries()]
    .sort(([a], [b]) => compareIds(a, b))
    .map(([code, { pointer, count }]) => ({
      pointer,
      message: `account ${code} is not in the chart of accounts (used ${count} time${count === 1 ? '' : 's'})`,
    }));
}

/** The chart's own rule beyond its schema: each code once. */
export function duplicateCodes(accounts: readonly Pick<LedgerAccount, 'code'>[]): FieldError[] {
  const first = new Map<string, number>();
  const errors: FieldError[] = [];
  accounts.forEach(({ code }, i) => {
    const at = first.get(code);
    if (at === undefined) first.set(code, i);
    else errors.push({ pointer: `/accounts/${i}/code`, message: `duplicates the code ${code} of /accounts/${at}` });
  });
  return errors;
}
