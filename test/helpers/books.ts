// Small builders for books, with ids unique to each test so that tests share
// one database without seeing each other.
import { randomBytes } from 'node:crypto';
import type { BooksFile } from '../../shared/domain/books-file.js';

type File = BooksFile;
type Entry = File['ledger_entries'][number];
type Account = File['bank_accounts'][number];
type Txn = File['bank_transactions'][number];
type Link = File['bank_links'][number];
type Doc = File['inbox_documents'][number];

/**
 * An invoice's lines for a signed amount: a receivable (≥ 0: debit 1400,
 * credit revenue 8400) or a payable (< 0: debit expense 4000, credit 1600).
 */
export function invoiceLines(amountMinor: number): Entry['lines'] {
  const abs = Math.abs(amountMinor);
  return amountMinor >= 0
    ? [
        { account: '1400', debit_minor: abs, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: abs },
      ]
    : [
        { account: '4000', debit_minor: abs, credit_minor: 0 },
        { account: '1600', debit_minor: 0, credit_minor: abs },
      ];
}

export class Books {
  readonly uid = randomBytes(4).toString('hex');
  readonly file: File;
  private n = 0;

  constructor(org: Partial<File['org']> = {}) {
    this.file = {
      org: {
        id: `org_${this.uid}`,
        name: `Test org ${this.uid}`,
        base_currency: 'EUR',
        lock_date: null,
        settlement_accounts: ['1400', '1600'],
        require_distinct_approver: true,
        ...org,
      },
      ledger_entries: [],
      bank_accounts: [],
      bank_transactions: [],
      bank_links: [],
      inbox_documents: [],
    };
  }

  get orgId(): string {
    return this.file.org.id;
  }

  id(prefix: string): string {
    this.n += 1;
    return `${prefix}_${this.uid}_${this.n}`;
  }

  cp(name: string): string {
    return `cp_${this.uid}_${name}`;
  }

  /** A receivable (positive amount: debit 1400) or payable (negative: credit 1600) invoice. */
  invoice(amountMinor: number, fields: Partial<Entry> = {}): string {
    const id = fields.id ?? this.id('le');
    const lines = invoiceLines(amountMinor);
    this.file.ledger_entries.push({
      id,
      entry_date: '2026-02-01',
      description: `Invoice ${id}`,
      reference: `REF-${id}`,
      counterparty_id: this.cp('a'),
      currency: 'EUR',
      lines,
      status: 'posted',
      ...fields,
    });
    return id;
  }

  account(fields: Partial<Account> = {}): string {
    const id = fields.id ?? this.id('ba');
    this.file.bank_accounts.push({
      id,
      name: 'Main account',
      currency: 'EUR',
      ledger_account: '1200',
      reconciled_through: null,
      opening_balance_minor: 0,
      ...fields,
    });
    return id;
  }

  txn(accountId: string, amountMinor: number, fields: Partial<Txn> = {}): string {
    const id = fields.id ?? this.id('bt');
    this.file.bank_transactions.push({
      id,
      bank_account_id: accountId,
      booking_date: '2026-02-10',
      amount_minor: amountMinor,
      currency: 'EUR',
      counterparty_id: this.cp('a'),
      counterparty_name: 'Customer A',
      remittance_info: '',
      status: 'unreconciled',
      ...fields,
    });
    return id;
  }

  link(txnId: string, entryId: string, amountMinor: number, fields: Partial<Link> = {}): string {
    const id = fields.id ?? this.id('lnk');
    this.file.bank_links.push({
      id,
      bank_transaction_id: txnId,
      ledger_entry_id: entryId,
      amount_minor: amountMinor,
      created_at: '2026-02-10T12:00:00.000Z',
      created_by: 'alice',
      ...fields,
    });
    return id;
  }

  /**
   * A bank transaction fully linked to an invoice of the same amount (inflow →
   * receivable, outflow → payable): one link for |amount|.
   */
  linkedTxn(
    accountId: string,
    amountMinor: number,
    fields: Partial<Txn> = {},
  ): { txn: string; entry: string; link: string } {
    const entry = this.invoice(amountMinor, { counterparty_id: fields.counterparty_id ?? this.cp('a') });
    const txn = this.txn(accountId, amountMinor, fields);
    const link = this.link(txn, entry, Math.abs(amountMinor));
    return { txn, entry, link };
  }

  doc(fields: Partial<Doc> & { extracted?: Doc['extracted'] } = {}): string {
    const id = fields.id ?? this.id('doc');
    this.file.inbox_documents.push({
      id,
      received_at: '2026-02-01T09:00:00.000Z',
      source: 'email',
      status: 'open',
      file: { sha256: randomBytes(32).toString('hex'), name: `${id}.pdf`, size: 1000, mime: 'application/pdf' },
      extracted: {},
      ...fields,
    });
    return id;
  }
}
