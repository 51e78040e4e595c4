// A journal read by hledger or beancount as a books file
// (docs/guide/ledger-exchange.md "Import"): what the derivation of
// docs/design/ledger-postings.md would have produced it from. Accounts become
// the chart, transactions without a bank account's posting entries, and a
// transaction with one becomes a bank transaction, its links (a posting the
// export marked with the `entry` it settles) and, for what no link names, a
// booking entry on a settlement account linked to it. Pure; a refusal names
// the line.
import type { BankAccount, LedgerAccount, LedgerAccountType, Provenance } from '../books.js';
import type { BooksFile } from '../books-file.js';
import { SUSPENSE_ACCOUNT } from '../ledger-postings.js';
import { accountCodes, accountType } from './account-codes.js';
import {
  dateRefusal,
  minorOf,
  type LedgerRefusal,
  type ReadJournal,
  type ReadPosting,
  type ReadTransaction,
} from './read-journal.js';

export interface ImportOptions {
  orgId: string;
  /** Default: the currency of the file's first transaction (EUR in a file without one). */
  baseCurrency?: string;
  /** Default: the accounts the file's links settle on; `SETTLEMENT` when it has none. */
  settlementAccounts?: string[];
  /** Account name → bank account id, beside the accounts the export marked with `bank-account`. */
  bankAccounts?: ReadonlyMap<string, string>;
}

/** Where each record of the file came from: section → index → line. */
export type SourceLines = Record<string, number[]>;

export type ToBooksResult =
  { ok: true; file: BooksFile; lines: SourceLines } | { ok: false; refusals: LedgerRefusal[] };

export const DEFAULT_SETTLEMENT_ACCOUNT = 'SETTLEMENT';
export const DEFAULT_BASE_CURRENCY = 'EUR';
const LINKED_BY = 'ledger-import';

interface Minor {
  account: string;
  minor: number;
  posting: ReadPosting;
}

interface Checked {
  tx: ReadTransaction;
  currency: string;
  postings: Minor[];
}

export function journalToBooks(journal: ReadJournal, options: ImportOptions): ToBooksResult {
  const refusals: LedgerRefusal[] = [];
  const org = options.orgId;
  const accountMeta = new Map(journal.accounts.map((a) => [a.name, a]));
  const metaOf = (name: string): Record<string, string> => accountMeta.get(name)?.meta ?? {};

  // Amounts, currencies, balance and dates first: every refusal of the file at once.
  const checked: Checked[] = [];
  for (const tx of journal.transactions) {
    const date = dateRefusal(tx.date, tx.line);
    if (date) refusals.push(date);
    const postings: Minor[] = [];
    const currencies = new Set<string>();
    let bad = false;
    for (const p of tx.postings) {
      const minor = minorOf(p.amount, tx.line);
      if (typeof minor !== 'number') {
        refusals.push(minor);
        bad = true;
        continue;
      }
      currencies.add(p.amount.currency);
      postings.push({ account: p.account, minor, posting: p });
    }
    if (bad) continue;
    if (currencies.size > 1) {
      refusals.push({
        line: tx.line,
        code: 'ledger_two_currencies',
        message: `the transaction is in ${[...currencies].sort().join(' and ')}; the books keep one currency per transaction`,
      });
      continue;
    }
    const sum = postings.reduce((s, p) => s + BigInt(p.minor), 0n);
    if (sum !== 0n) {
      refusals.push({ line: tx.line, code: 'ledger_unbalanced', message: 'the transaction does not balance' });
      continue;
    }
    checked.push({ tx, currency: [...currencies][0] ?? DEFAULT_BASE_CURRENCY, postings });
  }
  for (const b of journal.balances) {
    const date = dateRefusal(b.date, b.line);
    if (date) refusals.push(date);
  }

  // Bank accounts: marked by the export, or named by the caller.
  const bankOf = new Map<string, string>(options.bankAccounts ?? []);
  for (const a of journal.accounts) if (a.meta['bank-account']) bankOf.set(a.name, a.meta['bank-account']);

  const names = new Set<string>();
  for (const a of journal.accounts) names.add(a.name);
  for (const c of checked) for (const p of c.postings) names.add(p.account);
  const codes = accountCodes([...names], metaOf);
  const codeOf = (name: string): string => codes.get(name)!;
  const types = new Map<string, LedgerAccountType>();
  const firstLine = new Map<string, number>();
  for (const c of checked)
    for (const p of c.postings) if (!firstLine.has(p.account)) firstLine.set(p.account, c.tx.line);
  for (const name of names) {
    if (bankOf.has(name)) continue;
    const type = accountType(name, metaOf(name));
    if (type) types.set(name, type);
    else
      refusals.push({
        line: firstLine.get(name) ?? accountMeta.get(name)?.line ?? 0,
        code: 'ledger_account_type',
        message: `the account ${name} has no type: give it a root (Assets, Liabilities, Equity, Income, Expenses) or a type tag`,
      });
  }
  if (refusals.length > 0) return { ok: false, refusals: sortRefusals(refusals) };

  const entryIds = new Set(
    checked.filter((c) => !bankPostings(c, bankOf).length && c.tx.meta.id).map((c) => c.tx.meta.id!),
  );
  const linkTarget = (c: Checked, p: Minor): string | null => {
    const entry = p.posting.meta.entry;
    return entry && entryIds.has(entry) && Math.sign(p.minor) === -Math.sign(bankPostings(c, bankOf)[0]!.minor)
      ? entry
      : null;
  };

  const linkedCodes = new Set<string>();
  for (const c of checked) {
    if (bankPostings(c, bankOf).length !== 1) continue;
    for (const p of c.postings) if (!bankOf.has(p.account) && linkTarget(c, p)) linkedCodes.add(codeOf(p.account));
  }
  const settlement = options.settlementAccounts ?? [...linkedCodes].sort();
  if (settlement.length === 0) settlement.push(DEFAULT_SETTLEMENT_ACCOUNT);

  const file: BooksFile = {
    org: {
      id: org,
      name: org,
      base_currency: options.baseCurrency ?? checked[0]?.currency ?? DEFAULT_BASE_CURRENCY,
      lock_date: null,
      settlement_accounts: settlement,
      require_distinct_approver: false,
    },
    accounts: [],
    ledger_entries: [],
    bank_accounts: [],
    bank_transactions: [],
    bank_links: [],
    inbox_documents: [],
  };
  const lines: SourceLines = {
    ledger_entries: [],
    bank_accounts: [],
    bank_transactions: [],
    bank_links: [],
    accounts: [],
  };

  const counterparty = (payee: string): string => {
    const slug = payee
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 100);
    return `cp_${slug || 'unknown'}`;
  };
  const toLines = (postings: Minor[]) =>
    postings.map((p) => ({
      account: codeOf(p.account),
      debit_minor: p.minor > 0 ? p.minor : 0,
      credit_minor: p.minor < 0 ? -p.minor : 0,
    }));

  // Opening balances: a bank posting balanced only on equity, dated before the account's other postings.
  const equityOnly = (c: Checked): boolean =>
    !c.tx.meta.id && c.postings.every((p) => bankOf.has(p.account) || types.get(p.account) === 'equity');
  const firstOther = new Map<string, string>();
  for (const c of checked) {
    const bank = bankPostings(c, bankOf);
    if (bank.length !== 1 || equityOnly(c)) continue;
    const seen = firstOther.get(bank[0]!.account);
    if (!seen || c.tx.date < seen) firstOther.set(bank[0]!.account, c.tx.date);
  }

  interface BankUse {
    id: string;
    currency: string;
    opening: number;
    name: string | null;
    line: number;
    reconciled: { date: string; balance_minor: number; line: number } | null;
  }
  const banks = new Map<string, BankUse>();
  const bankUse = (account: string, currency: string, line: number): BankUse => {
    let use = banks.get(account);
    if (!use) {
      use = { id: bankOf.get(account)!, currency, opening: 0, name: null, line, reconciled: null };
      banks.set(account, use);
    }
    return use;
  };
  const assert = (account: string, date: string, balance: number, line: number): void => {
    const use = bankUse(account, '', line);
    if (!use.reconciled || use.reconciled.date <= date) use.reconciled = { date, balance_minor: balance, line };
  };

  for (const c of checked) {
    const { tx } = c;
    for (const p of c.postings) {
      if (p.posting.assertion && bankOf.has(p.account)) {
        const balance = minorOf(p.posting.assertion, tx.line);
        if (typeof balance === 'number') assert(p.account, tx.date, balance, tx.line);
        else refusals.push(balance);
      }
    }
    if (c.postings.every((p) => p.minor === 0)) continue;
    const bank = bankPostings(c, bankOf);
    const others = c.postings.filter((p) => !bankOf.has(p.account));
    if (bank.length === 0) {
      file.ledger_entries.push({
        id: tx.meta.id ?? `le_${org}_L${tx.line}`,
        entry_date: tx.date,
        description: tx.meta.id || tx.narration ? tx.narration : tx.payee,
        reference: tx.meta.reference ?? '',
        counterparty_id: tx.meta.counterparty ?? counterparty(tx.payee),
        currency: c.currency,
        lines: toLines(c.postings),
        status: 'posted',
        ...(tx.meta['reversal-of'] ? { reversal_of: tx.meta['reversal-of'] } : {}),
        ...provenanceOf(tx.meta),
      });
      lines.ledger_entries!.push(tx.line);
      continue;
    }
    if (bank.length > 1 && others.length > 0) {
      refusals.push({
        line: tx.line,
        code: 'ledger_bank_postings',
        message:
          'a transaction on two bank accounts may have no other posting: each bank posting is a transaction of its own',
      });
      continue;
    }
    if (bank.length === 1 && equityOnly(c)) {
      const first = firstOther.get(bank[0]!.account);
      if (!first || tx.date < first) {
        const use = bankUse(bank[0]!.account, c.currency, tx.line);
        use.currency ||= c.currency;
        use.opening += bank[0]!.minor;
        use.name ??= tx.payee || null;
        continue;
      }
    }
    bank.forEach((b, i) => {
      const use = bankUse(b.account, c.currency, tx.line);
      use.currency ||= c.currency;
      const id =
        tx.meta.id && bank.length === 1 ? tx.meta.id : `bt_${org}_L${tx.line}${bank.length > 1 ? `_${i + 1}` : ''}`;
      file.bank_transactions.push({
        id,
        bank_account_id: use.id,
        booking_date: tx.date,
        amount_minor: b.minor,
        currency: c.currency,
        counterparty_id: tx.meta.counterparty ?? (tx.meta.id ? null : counterparty(tx.payee)),
        counterparty_name: tx.payee,
        remittance_info: tx.narration,
        ...(tx.meta['bank-reference'] ? { bank_reference: tx.meta['bank-reference'] } : {}),
        status: 'unreconciled',
        ...provenanceOf(tx.meta),
      });
      lines.bank_transactions!.push(tx.line);
      if (bank.length > 1) return;
      let n = 0;
      const link = (entryId: string, amount: number, meta: Record<string, string> = {}): void => {
        n += 1;
        file.bank_links.push({
          id: `bl_${org}_L${tx.line}_${n}`,
          bank_transaction_id: id,
          ledger_entry_id: entryId,
          amount_minor: amount,
          created_at: `${tx.date}T00:00:00.000Z`,
          created_by: LINKED_BY,
          ...provenanceOf(meta),
        });
        lines.bank_links!.push(tx.line);
      };
      const booked: Minor[] = [];
      for (const p of others) {
        const target = linkTarget(c, p);
        if (target) link(target, Math.abs(p.minor), p.posting.meta);
        else if (codeOf(p.account) !== SUSPENSE_ACCOUNT) booked.push(p);
      }
      if (booked.length === 0) return;
      // What no link names is booked on a settlement account and settled by this transaction.
      const rest = booked.reduce((s, p) => s + p.minor, 0);
      if (rest === 0 || Math.sign(rest) === Math.sign(b.minor)) {
        refusals.push({
          line: tx.line,
          code: 'ledger_bank_postings',
          message: 'the postings beside the bank posting must together be on its other side',
        });
        return;
      }
      const entryId = `le_${org}_L${tx.line}`;
      file.ledger_entries.push({
        id: entryId,
        entry_date: tx.date,
        description: tx.narration || tx.payee,
        reference: tx.meta.reference ?? '',
        counterparty_id: tx.meta.counterparty ?? counterparty(tx.payee),
        currency: c.currency,
        lines: [
          ...toLines(booked),
          { account: settlement[0]!, debit_minor: rest < 0 ? -rest : 0, credit_minor: rest > 0 ? rest : 0 },
        ],
        status: 'posted',
      });
      lines.ledger_entries!.push(tx.line);
      link(entryId, Math.abs(rest));
    });
  }
  for (const b of journal.balances) {
    if (!bankOf.has(b.account)) continue;
    const balance = minorOf(b.amount, b.line);
    if (typeof balance === 'number') assert(b.account, b.date, balance, b.line);
    else refusals.push(balance);
  }
  if (refusals.length > 0) return { ok: false, refusals: sortRefusals(refusals) };

  // A reversal names the entry it reverses (`reversal-of`): that one is reversed, by it.
  const byId = new Map(file.ledger_entries.map((e) => [e.id, e]));
  for (const e of file.ledger_entries) {
    const reversed = e.reversal_of ? byId.get(e.reversal_of) : undefined;
    if (!reversed) continue;
    reversed.status = 'reversed';
    reversed.reversed_by = e.id;
  }

  // The chart: every account of the file but the bank accounts, the settlement accounts and the banks' ledger accounts.
  const chart = new Map<string, LedgerAccount & { line: number }>();
  const chartAccount = (name: string): void => {
    const code = codeOf(name);
    if (chart.has(code)) return;
    const meta = metaOf(name);
    chart.set(code, {
      code,
      name: meta.name ?? (meta.code ? code : name),
      type: types.get(name)!,
      active: meta.inactive !== 'true',
      line: accountMeta.get(name)?.line ?? firstLine.get(name) ?? 0,
    });
  };
  for (const name of [...names].sort()) if (!bankOf.has(name)) chartAccount(name);
  const ledgerAccountOf = (account: string): string => {
    // The export opens each bank account (`bank-account` metadata) under its opened ledger account; any other is its own.
    const parent = account.split(':').slice(0, -1).join(':');
    const underLedger = metaOf(account)['bank-account'] !== undefined && accountMeta.has(parent) && codes.has(parent);
    return underLedger ? codes.get(parent)! : codeOf(account);
  };
  for (const [account, use] of [...banks].sort((a, b) => (a[1].id < b[1].id ? -1 : 1))) {
    const ledger = ledgerAccountOf(account);
    const meta = metaOf(account);
    const reconciled = meta['reconciled-through'] && meta['reconciled-balance'] ? readReconciled(meta) : use.reconciled;
    const bankAccount: Omit<BankAccount, 'version'> = {
      id: use.id,
      name: meta.name ?? use.name ?? account,
      currency: use.currency || reconciledCurrency(meta) || file.org.base_currency,
      ledger_account: ledger,
      reconciled_through: reconciled ? { date: reconciled.date, balance_minor: reconciled.balance_minor } : null,
      opening_balance_minor: use.opening,
    };
    file.bank_accounts.push(bankAccount);
    lines.bank_accounts!.push(accountMeta.get(account)?.line ?? use.line);
    // A bank account named by the caller is its own ledger account, named by its full name.
    if (!chart.has(ledger))
      chart.set(ledger, {
        code: ledger,
        name: ledger === codeOf(account) ? account : ledger,
        type: 'asset',
        active: true,
        line: use.line,
      });
  }
  // A settlement account the file does not use: typed by its root as a name would be (`Liabilities.Payable`), else an asset.
  for (const code of settlement) {
    if (!chart.has(code))
      chart.set(code, {
        code,
        name: code === DEFAULT_SETTLEMENT_ACCOUNT ? 'Settlement' : code,
        type: accountType(code.replace(/\./g, ':'), {}) ?? 'asset',
        active: true,
        line: 0,
      });
  }
  for (const { line, ...account } of [...chart.values()].sort((a, b) => (a.code < b.code ? -1 : 1))) {
    file.accounts!.push(account);
    lines.accounts!.push(line);
  }
  return { ok: true, file, lines };
}

function bankPostings(c: Checked, bankOf: ReadonlyMap<string, string>): Minor[] {
  return c.postings.filter((p) => bankOf.has(p.account));
}

/** `reconciled-through` and `reconciled-balance` (`519.99 USD`) as the export writes them on a bank account. */
function readReconciled(meta: Record<string, string>): { date: string; balance_minor: number } | null {
  const m = /^(-?)(\d+)(?:\.(\d+))? ([A-Z]{3})$/.exec(meta['reconciled-balance']!.trim());
  if (!m) return null;
  const minor = minorOf({ currency: m[4]!, mantissa: `${m[1]}${m[2]}${m[3] ?? ''}`, places: (m[3] ?? '').length }, 0);
  return typeof minor === 'number' ? { date: meta['reconciled-through']!.trim(), balance_minor: minor } : null;
}

function reconciledCurrency(meta: Record<string, string>): string | null {
  return /([A-Z]{3})$/.exec(meta['reconciled-balance'] ?? '')?.[1] ?? null;
}

function sortRefusals(refusals: LedgerRefusal[]): LedgerRefusal[] {
  return [...refusals].sort((a, b) => a.line - b.line || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

/**
 * The `operation` and `approved-by` metadata an export writes on a record an
 * applied operation wrote (docs/guide/ledger-exchange.md "Who wrote it"), kept
 * so that the next export writes them again.
 */
export function provenanceOf(meta: Record<string, string>): { provenance?: Provenance } {
  const operation = meta.operation?.trim();
  if (!operation) return {};
  const approvedBy = (meta['approved-by'] ?? '').split(' ').filter((a) => a !== '');
  return { provenance: { operation, approved_by: approvedBy } };
}
