// Which code and type an account of an imported journal gets
// (docs/guide/ledger-exchange.md "Import"): the code the export wrote in its
// metadata, else one made from its full name; the type from its `type` tag,
// else from its root. Pure.
import type { LedgerAccountType } from '../books.js';
import { LEDGER_ACCOUNT_CODE_MAX_LENGTH } from '../chart-of-accounts.js';

const CODE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A full name as a code: `:` becomes `.`, other characters a code cannot hold `-`; a long one is cut and keeps a hash of the whole. */
export function codeFromName(name: string): string {
  let code = name.replace(/:/g, '.').replace(/[^A-Za-z0-9._-]/g, '-');
  if (!/^[A-Za-z0-9]/.test(code)) code = `X${code}`;
  if (code.length <= LEDGER_ACCOUNT_CODE_MAX_LENGTH) return code;
  return `${code.slice(0, LEDGER_ACCOUNT_CODE_MAX_LENGTH - 9)}-${fnv1a(name)}`;
}

/** 32-bit FNV-1a of the UTF-16 code units, 8 hex digits. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The code of each account: its `code` metadata when it is a valid code, else from its name; clashes get `-2`, `-3`, … in name order. */
export function accountCodes(
  names: readonly string[],
  meta: (name: string) => Record<string, string>,
): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  const sorted = [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const wanted = (name: string): string => {
    const code = meta(name).code;
    return code && CODE.test(code) && code.length <= LEDGER_ACCOUNT_CODE_MAX_LENGTH ? code : codeFromName(name);
  };
  // Codes the file states come first: a made-up code never takes one of them.
  for (const stated of [true, false]) {
    for (const name of sorted) {
      if (out.has(name) || (meta(name).code !== undefined) !== stated) continue;
      const base = wanted(name);
      let code = base;
      for (let n = 2; taken.has(code); n += 1) code = `${base.slice(0, LEDGER_ACCOUNT_CODE_MAX_LENGTH - 4)}-${n}`;
      taken.add(code);
      out.set(name, code);
    }
  }
  return out;
}

const TYPE_TAGS: Record<string, LedgerAccountType> = {
  a: 'asset',
  asset: 'asset',
  c: 'asset',
  cash: 'asset',
  l: 'liability',
  liability: 'liability',
  e: 'equity',
  equity: 'equity',
  v: 'equity',
  conversion: 'equity',
  r: 'income',
  revenue: 'income',
  x: 'expense',
  expense: 'expense',
};

const ROOTS: Record<string, LedgerAccountType> = {
  assets: 'asset',
  asset: 'asset',
  liabilities: 'liability',
  liability: 'liability',
  equity: 'equity',
  income: 'income',
  revenue: 'income',
  revenues: 'income',
  expenses: 'expense',
  expense: 'expense',
};

/** The type from a `type` tag (hledger's letters or words), else from the first component of the name; null: neither says. */
export function accountType(name: string, meta: Record<string, string>): LedgerAccountType | null {
  const tag = meta.type?.trim().toLowerCase();
  if (tag && TYPE_TAGS[tag]) return TYPE_TAGS[tag];
  return ROOTS[name.split(':')[0]!.toLowerCase()] ?? null;
}
