// The books as a general ledger (docs/design/ledger-postings.md): every entry's
// lines, plus the bank side that bookstage's books keep as transactions and
// links rather than as lines: each account's opening balance, and each bank
// transaction on its bank's ledger account balanced by its links. Pure; the
// trial balance and the hledger/beancount export read the same postings.
import { compareIds, type BankAccount, type BankLink, type BankTransaction, type IsoDate } from './books.js';
import { dayBefore } from './dates.js';

/** The equity account that balances each bank account's opening balance. */
export const OPENING_BALANCE_ACCOUNT = 'OPENING-BALANCES';
/** The account that holds what a bank transaction moved and no link explains (yet). */
export const SUSPENSE_ACCOUNT = 'SUSPENSE';

export interface Posting {
  account: string;
  debit_minor: number;
  credit_minor: number;
  /** On the bank side's posting on a bank's ledger account: which bank account (an export keeps each apart). */
  bank_account_id?: string;
  /** On a link's posting: the entry it settles (an export names it, so an import can link it again). */
  ledger_entry_id?: string;
}

/** Where a ledger transaction comes from: an entry of the books, or the bank side derived from them. */
export type PostingSource =
  | { kind: 'entry'; id: string }
  | { kind: 'bank_transaction'; id: string; bank_account_id: string }
  | { kind: 'opening_balance'; bank_account_id: string };

/** One balanced transaction of the ledger: its postings share its date and currency. */
export interface LedgerTransaction {
  date: IsoDate;
  currency: string;
  source: PostingSource;
  postings: Posting[];
}

/** What deriving needs of an entry: its settlement account is its first line on one of the organisation's. */
export interface PostingEntry {
  id: string;
  entry_date: IsoDate;
  currency: string;
  lines: readonly Posting[];
}

export type PostingAccount = Pick<BankAccount, 'id' | 'currency' | 'ledger_account' | 'opening_balance_minor'>;
export type PostingTransaction = Pick<
  BankTransaction,
  'id' | 'bank_account_id' | 'booking_date' | 'amount_minor' | 'currency'
>;
export type PostingLink = Pick<BankLink, 'bank_transaction_id' | 'ledger_entry_id' | 'amount_minor'>;

export interface PostingBooks {
  settlementAccounts: readonly string[];
  accounts: readonly PostingAccount[];
  entries: readonly PostingEntry[];
  transactions: readonly PostingTransaction[];
  links: readonly PostingLink[];
}

/** The account of an entry's first line on a settlement account; an entry with none is settled on suspense. */
export function settlementAccountOf(entry: Pick<PostingEntry, 'lines'>, settlementAccounts: readonly string[]): string {
  return entry.lines.find((l) => settlementAccounts.includes(l.account))?.account ?? SUSPENSE_ACCOUNT;
}

function side(account: string, amount: number, debit: boolean): Posting {
  return debit ? { account, debit_minor: amount, credit_minor: 0 } : { account, debit_minor: 0, credit_minor: amount };
}

/**
 * Every ledger transaction of the books in one order: by date, then entries
 * before the bank side, then id (an opening balance before its account's
 * transactions). Links are taken as they are now: a link made later moves a
 * past transaction's balancing posting from suspense to the entry's account.
 */
export function ledgerTransactions(books: PostingBooks): LedgerTransaction[] {
  const out: LedgerTransaction[] = [];
  for (const entry of books.entries) {
    out.push({
      date: entry.entry_date,
      currency: entry.currency,
      source: { kind: 'entry', id: entry.id },
      postings: entry.lines.map((l) => ({
        account: l.account,
        debit_minor: l.debit_minor,
        credit_minor: l.credit_minor,
      })),
    });
  }
  // One at a time: a spread of a whole book's postings overflows the call stack.
  for (const p of bankSide(books)) out.push(p);
  return out.sort(compareLedgerTransactions);
}

const SOURCE_ORDER: Record<PostingSource['kind'], number> = { entry: 0, opening_balance: 1, bank_transaction: 2 };

function sourceId(source: PostingSource): string {
  return source.kind === 'opening_balance' ? source.bank_account_id : source.id;
}

function compareLedgerTransactions(a: LedgerTransaction, b: LedgerTransaction): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  const order = SOURCE_ORDER[a.source.kind] - SOURCE_ORDER[b.source.kind];
  return order !== 0 ? order : compareIds(sourceId(a.source), sourceId(b.source));
}

/** The bank side: opening balances and each transaction with its links' and suspense's postings. */
export function bankSide(books: PostingBooks): LedgerTransaction[] {
  const accounts = new Map(books.accounts.map((a) => [a.id, a]));
  const settlementOf = new Map(books.entries.map((e) => [e.id, settlementAccountOf(e, books.settlementAccounts)]));
  const linksOf = new Map<string, PostingLink[]>();
  for (const link of books.links) {
    const list = linksOf.get(link.bank_transaction_id);
    if (list) list.push(link);
    else linksOf.set(link.bank_transaction_id, [link]);
  }
  const firstDate = new Map<string, IsoDate>();
  const out: LedgerTransaction[] = [];
  for (const tx of books.transactions) {
    const account = accounts.get(tx.bank_account_id);
    if (!account) continue;
    const first = firstDate.get(account.id);
    if (first === undefined || tx.booking_date < first) firstDate.set(account.id, tx.booking_date);
    if (tx.amount_minor === 0) continue;
    const moneyIn = tx.amount_minor > 0;
    const amount = Math.abs(tx.amount_minor);
    const postings: Posting[] = [{ ...side(account.ledger_account, amount, moneyIn), bank_account_id: account.id }];
    let linked = 0;
    const links = [...(linksOf.get(tx.id) ?? [])].sort((a, b) => compareIds(a.ledger_entry_id, b.ledger_entry_id));
    for (const link of links) {
      linked += link.amount_minor;
      postings.push({
        ...side(settlementOf.get(link.ledger_entry_id) ?? SUSPENSE_ACCOUNT, link.amount_minor, !moneyIn),
        ledger_entry_id: link.ledger_entry_id,
      });
    }
    const rest = amount - linked;
    // A transaction linked beyond its amount (possible only in hand-written books) balances on suspense the other way.
    if (rest !== 0) postings.push(side(SUSPENSE_ACCOUNT, Math.abs(rest), rest > 0 ? !moneyIn : moneyIn));
    out.push({
      date: tx.booking_date,
      currency: tx.currency,
      source: { kind: 'bank_transaction', id: tx.id, bank_account_id: tx.bank_account_id },
      postings,
    });
  }
  for (const account of books.accounts) {
    const first = firstDate.get(account.id);
    // An account without transactions has no day before its first: its opening balance is stated by the account itself.
    if (account.opening_balance_minor === 0 || first === undefined) continue;
    const amount = Math.abs(account.opening_balance_minor);
    const debit = account.opening_balance_minor > 0;
    out.push({
      date: dayBefore(first),
      currency: account.currency,
      source: { kind: 'opening_balance', bank_account_id: account.id },
      postings: [
        { ...side(account.ledger_account, amount, debit), bank_account_id: account.id },
        side(OPENING_BALANCE_ACCOUNT, amount, !debit),
      ],
    });
  }
  return out;
}
