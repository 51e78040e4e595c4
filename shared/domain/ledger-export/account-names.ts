// Account names for hledger and beancount (docs/guide/ledger-exchange.md
// "Account names"): `Root:Component` from each code, the root from the
// chart's type, one rule both tools accept. Pure.
import { compareIds, type LedgerAccountType } from '../books.js';
import { OPENING_BALANCE_ACCOUNT, SUSPENSE_ACCOUNT } from '../ledger-postings.js';

export const ROOTS: Record<LedgerAccountType, string> = {
  asset: 'Assets',
  liability: 'Liabilities',
  equity: 'Equity',
  income: 'Income',
  expense: 'Expenses',
};

/**
 * One component of an account name as beancount requires it (a capital or a
 * digit, then letters, digits and dashes), which hledger accepts too: every
 * other character becomes `-`, a first lower-case letter is capitalised, and
 * anything else first gets an `X` before it.
 */
export function accountComponent(text: string): string {
  const dashed = [...text].map((c) => (/^[A-Za-z0-9-]$/.test(c) ? c : '-')).join('');
  if (/^[A-Z0-9]/.test(dashed)) return dashed;
  if (/^[a-z]/.test(dashed)) return dashed[0]!.toUpperCase() + dashed.slice(1);
  return `X${dashed}`;
}

/** What the names are made of: every code used, the chart's types, and the accounts the books name by role. */
export interface NamingInput {
  codes: readonly string[];
  chartTypes: ReadonlyMap<string, LedgerAccountType>;
  /** Bank accounts' ledger accounts and the organisation's settlement accounts: assets when no chart types them. */
  assetCodes: ReadonlySet<string>;
}

/**
 * The type of a code: the chart's; else the opening-balance account is
 * equity, bank, settlement and suspense accounts are assets, and every other
 * code is equity (give the books a chart to name them properly).
 */
export function typeOf(code: string, input: Pick<NamingInput, 'chartTypes' | 'assetCodes'>): LedgerAccountType {
  const charted = input.chartTypes.get(code);
  if (charted) return charted;
  if (code === OPENING_BALANCE_ACCOUNT) return 'equity';
  if (code === SUSPENSE_ACCOUNT || input.assetCodes.has(code)) return 'asset';
  return 'equity';
}

/**
 * Code → full name. Codes whose names would coincide (`a.1` and `a-1`) are
 * told apart in byte order of their codes: the first keeps the name, the
 * next get `-2`, `-3`, …
 */
export function accountNames(input: NamingInput): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const code of [...new Set(input.codes)].sort(compareIds)) {
    names.set(code, unique(`${ROOTS[typeOf(code, input)]}:${accountComponent(code)}`, taken));
  }
  return names;
}

/** Each bank account's own sub-account of its ledger account's name (bank account id → full name), told apart as codes are. */
export function bankAccountNames(
  accounts: ReadonlyArray<{ id: string; ledger_account: string }>,
  codeNames: ReadonlyMap<string, string>,
): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>(codeNames.values());
  for (const account of [...accounts].sort((a, b) => compareIds(a.id, b.id))) {
    const parent = codeNames.get(account.ledger_account);
    if (parent) names.set(account.id, unique(`${parent}:${accountComponent(account.id)}`, taken));
  }
  return names;
}

function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${name}-${n}`;
  taken.add(candidate);
  return candidate;
}
