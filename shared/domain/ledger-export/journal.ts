// The books as one plain-text accounting journal, before it is written in
// hledger's or beancount's syntax (docs/guide/ledger-exchange.md "What the
// export holds"): accounts opened at first use, every entry and every bank
// transaction with its derived postings (docs/design/ledger-postings.md),
// and each bank account's balance at its last reconciliation. Pure; the same
// books give the same journal.
import { compareIds, type IsoDate, type LedgerAccount, type Provenance } from '../books.js';
import { currencyExponent } from '../currency.js';
import {
  ledgerTransactions,
  type PostingAccount,
  type PostingEntry,
  type PostingLink,
  type PostingTransaction,
} from '../ledger-postings.js';
import { ROOTS, accountNames, bankAccountNames, typeOf } from './account-names.js';

export interface ExportBooks {
  org_id: string;
  /** Records dated after it are left out; null: every record. */
  through: IsoDate | null;
  settlementAccounts: readonly string[];
  chart: readonly LedgerAccount[];
  accounts: ReadonlyArray<
    PostingAccount & { name: string; reconciled_through: { date: IsoDate; balance_minor: number } | null }
  >;
  entries: ReadonlyArray<
    PostingEntry & {
      description: string;
      reference: string;
      counterparty_id: string;
      /** The entry this one reverses; an import marks that one reversed again. */
      reversal_of?: string | null;
      provenance?: Provenance | null;
    }
  >;
  transactions: ReadonlyArray<
    PostingTransaction & {
      counterparty_id: string | null;
      counterparty_name: string;
      remittance_info: string;
      bank_reference?: string | null;
      provenance?: Provenance | null;
    }
  >;
  /** With its id, when the caller wants the operation that wrote each link in the file. */
  links: ReadonlyArray<PostingLink & { id?: string; provenance?: Provenance | null }>;
  /**
   * The applied operations, in the order applied, and the records each wrote
   * (`ledger_entries`, `bank_transactions`, `bank_links`): a record's last
   * one and its approvers are its `operation` and `approved-by` metadata;
   * a record none names gives its own `provenance` (kept by an import).
   */
  operations?: ReadonlyArray<ExportOperation>;
}

export interface ExportOperation {
  id: string;
  approvers: readonly string[];
  records: ReadonlyArray<{ collection: string; id: string }>;
}

/** Metadata as (key, value) pairs, keys as beancount allows them (lower case first). */
export type Meta = ReadonlyArray<readonly [key: string, value: string]>;

export interface JournalOpen {
  date: IsoDate;
  account: string;
  meta: Meta;
  /** hledger's account type letter (A, L, E, R, X). */
  typeLetter: string;
}

export interface JournalPosting {
  account: string;
  /** Debit positive, credit negative, in minor units. */
  amount_minor: number;
  /** A link's posting names the entry it settles: `entry`. */
  meta: Meta;
}

export interface JournalTransaction {
  date: IsoDate;
  currency: string;
  payee: string;
  narration: string;
  meta: Meta;
  postings: JournalPosting[];
}

/** A bank account's balance at its last reconciliation, and the balance its transactions give on that day. */
export interface JournalReconciled {
  bank_account_id: string;
  account: string;
  date: IsoDate;
  currency: string;
  statement_minor: number;
  books_minor: number;
  /** False when the account is first used after the day: there is nothing to assert against. */
  assertable: boolean;
}

export interface Journal {
  org_id: string;
  through: IsoDate | null;
  opens: JournalOpen[];
  transactions: JournalTransaction[];
  reconciled: JournalReconciled[];
}

const TYPE_LETTERS: Record<keyof typeof ROOTS, string> = {
  asset: 'A',
  liability: 'L',
  equity: 'E',
  income: 'R',
  expense: 'X',
};

/** Build the journal of the books, every record dated on or before `through`. */
export function exportJournal(books: ExportBooks): Journal {
  const inPeriod = (date: IsoDate) => books.through === null || date <= books.through;
  const chartTypes = new Map(books.chart.map((a) => [a.code, a.type]));
  const chartByCode = new Map(books.chart.map((a) => [a.code, a]));
  const assetCodes = new Set([...books.accounts.map((a) => a.ledger_account), ...books.settlementAccounts]);

  const ledger = ledgerTransactions({
    settlementAccounts: books.settlementAccounts,
    accounts: books.accounts,
    entries: books.entries,
    transactions: books.transactions,
    links: books.links,
  }).filter((t) => inPeriod(t.date));

  const codes = ledger.flatMap((t) => t.postings.map((p) => p.account));
  const naming = { codes, chartTypes, assetCodes };
  const codeNames = accountNames(naming);
  const bankNames = bankAccountNames(books.accounts, codeNames);
  const nameOf = (p: { account: string; bank_account_id?: string }): string =>
    (p.bank_account_id ? bankNames.get(p.bank_account_id) : undefined) ?? codeNames.get(p.account)!;

  const entries = new Map(books.entries.map((e) => [e.id, e]));
  const transactions = new Map(books.transactions.map((t) => [t.id, t]));
  const accounts = new Map(books.accounts.map((a) => [a.id, a]));
  const payees = counterpartyNames(books.transactions);
  const writtenBy = new Map<string, ExportOperation>();
  for (const op of books.operations ?? []) for (const r of op.records) writtenBy.set(`${r.collection}/${r.id}`, op);
  const linkIds = new Map<string, Array<{ id: string; provenance?: Provenance | null }>>();
  for (const l of books.links) {
    if (l.id === undefined) continue;
    const key = `${l.bank_transaction_id}/${l.ledger_entry_id}`;
    linkIds.set(key, [...(linkIds.get(key) ?? []), { id: l.id, provenance: l.provenance }]);
  }
  /**
   * `operation` and `approved-by` (space-separated: a tag value ends at a comma) of what wrote the record last:
   * an applied operation of this store, else the record's own provenance.
   */
  const operationMeta = (
    collection: string,
    ...records: Array<{ id: string; provenance?: Provenance | null }>
  ): Meta => {
    let op: Provenance | undefined;
    for (const r of records) {
      const applied = writtenBy.get(`${collection}/${r.id}`);
      op = (applied ? { operation: applied.id, approved_by: [...applied.approvers] } : r.provenance) ?? op;
    }
    if (!op) return [];
    return [
      ['operation', op.operation],
      ...(op.approved_by.length ? [['approved-by', op.approved_by.join(' ')] as const] : []),
    ];
  };

  const firstUse = new Map<string, { date: IsoDate; code: string; bank_account_id?: string }>();
  const out: JournalTransaction[] = [];
  for (const tx of ledger) {
    for (const p of tx.postings) {
      const name = nameOf(p);
      if (!firstUse.has(name))
        firstUse.set(name, { date: tx.date, code: p.account, bank_account_id: p.bank_account_id });
      // A bank's ledger account is opened with its first sub-account, so that its code is stated too.
      const parent = codeNames.get(p.account)!;
      if (!firstUse.has(parent)) firstUse.set(parent, { date: tx.date, code: p.account });
    }
    const postings = tx.postings.map((p) => ({
      account: nameOf(p),
      amount_minor: p.debit_minor - p.credit_minor,
      meta: p.ledger_entry_id
        ? [
            ['entry', p.ledger_entry_id] as const,
            ...(tx.source.kind === 'bank_transaction'
              ? operationMeta('bank_links', ...(linkIds.get(`${tx.source.id}/${p.ledger_entry_id}`) ?? []))
              : []),
          ]
        : [],
    }));
    const source = tx.source;
    if (source.kind === 'entry') {
      const e = entries.get(source.id)!;
      out.push({
        date: tx.date,
        currency: tx.currency,
        payee: payees.get(e.counterparty_id) ?? e.counterparty_id,
        narration: e.description,
        meta: [
          ['id', e.id],
          ...(e.reference ? [['reference', e.reference] as const] : []),
          ['counterparty', e.counterparty_id],
          ...(e.reversal_of ? [['reversal-of', e.reversal_of] as const] : []),
          ...operationMeta('ledger_entries', e),
        ],
        postings,
      });
    } else if (source.kind === 'bank_transaction') {
      const t = transactions.get(source.id)!;
      out.push({
        date: tx.date,
        currency: tx.currency,
        payee: t.counterparty_name,
        narration: t.remittance_info,
        meta: [
          ['id', t.id],
          ['bank-account', t.bank_account_id],
          ...(t.bank_reference ? [['bank-reference', t.bank_reference] as const] : []),
          ...(t.counterparty_id ? [['counterparty', t.counterparty_id] as const] : []),
          ...operationMeta('bank_transactions', t),
        ],
        postings,
      });
    } else {
      const a = accounts.get(source.bank_account_id)!;
      out.push({
        date: tx.date,
        currency: tx.currency,
        payee: a.name,
        narration: 'Opening balance',
        meta: [['bank-account', a.id]],
        postings,
      });
    }
  }

  const opens: JournalOpen[] = [...firstUse.entries()]
    .map(([account, use]) => {
      const type = typeOf(use.code, naming);
      const charted = chartByCode.get(use.code);
      const meta: Array<readonly [string, string]> = use.bank_account_id
        ? bankMeta(accounts.get(use.bank_account_id)!)
        : [
            ['code', use.code],
            ...(charted && charted.name !== use.code ? [['name', charted.name] as const] : []),
            ...(charted && !charted.active ? [['inactive', 'true'] as const] : []),
          ];
      return { date: use.date, account, meta, typeLetter: TYPE_LETTERS[type] };
    })
    .sort((a, b) => compareIds(a.date, b.date) || compareIds(a.account, b.account));

  // A bank account's name and last reconciliation, so that an import gets them back whether asserted or not.
  function bankMeta(a: ExportBooks['accounts'][number]): Array<readonly [string, string]> {
    const rec = a.reconciled_through;
    return [
      ['bank-account', a.id],
      ['name', a.name],
      ...(rec && inPeriod(rec.date)
        ? ([
            ['reconciled-through', rec.date],
            ['reconciled-balance', `${decimalAmount(rec.balance_minor, a.currency)} ${a.currency}`],
          ] as const)
        : []),
    ];
  }

  const reconciled: JournalReconciled[] = [];
  for (const a of [...books.accounts].sort((x, y) => compareIds(x.id, y.id))) {
    const rec = a.reconciled_through;
    const name = bankNames.get(a.id);
    if (!rec || !inPeriod(rec.date) || !name) continue;
    let books_minor = BigInt(a.opening_balance_minor);
    for (const t of books.transactions) {
      if (t.bank_account_id === a.id && t.booking_date <= rec.date) books_minor += BigInt(t.amount_minor);
    }
    const opened = firstUse.get(name)?.date;
    reconciled.push({
      bank_account_id: a.id,
      account: name,
      date: rec.date,
      currency: a.currency,
      statement_minor: rec.balance_minor,
      books_minor: Number(books_minor),
      assertable: opened !== undefined && opened <= rec.date,
    });
  }
  return { org_id: books.org_id, through: books.through, opens, transactions: out, reconciled };
}

/** The counterparty read's name of each counterparty: its latest `counterparty_name` by booking date, then id. */
export function counterpartyNames(transactions: ExportBooks['transactions']): Map<string, string> {
  const latest = new Map<string, { date: IsoDate; id: string; name: string }>();
  for (const t of transactions) {
    if (!t.counterparty_id) continue;
    const seen = latest.get(t.counterparty_id);
    if (!seen || t.booking_date > seen.date || (t.booking_date === seen.date && compareIds(t.id, seen.id) > 0)) {
      latest.set(t.counterparty_id, { date: t.booking_date, id: t.id, name: t.counterparty_name });
    }
  }
  return new Map([...latest].map(([id, v]) => [id, v.name]));
}

/** Integer minor units as a decimal in the currency's exponent, exactly: 12345 EUR → "123.45", -5 → "-0.05", 1500 JPY → "1500". */
export function decimalAmount(minor: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor));
  if (exponent === 0) return `${sign}${digits}`;
  const padded = digits.padStart(exponent + 1, '0');
  return `${sign}${padded.slice(0, -exponent)}.${padded.slice(-exponent)}`;
}

/** Whether every reconciled balance agrees with the books; the ones that do not, for the export's summary. */
export function disagreements(journal: Journal): JournalReconciled[] {
  return journal.reconciled.filter((r) => r.statement_minor !== r.books_minor);
}
