// What a statement import reads of an account (docs/guide/statement-import.md):
// to stage, every transaction of the account, only the fields the duplicate
// rules, the balance check and the counterparty match read, by the (org_id,
// bank_account_id, …) index; one query, whatever the account's size. To
// apply, only the transactions carrying one of the plan's bank references.
import type { Db } from 'mongodb';
import type { ExistingTransaction } from '../kinds/statement-import/plan.js';
import { readFields } from './books-whole.js';
import { collections, type Stored } from './collections.js';
import type { BankTransaction } from '../domain/books.js';
import type { ReferencedTransaction } from './port.js';
import { storeAdapter } from './store-adapter.js';

export type ImportedAccountTransaction = ExistingTransaction & {
  version: number;
  counterparty_id: string | null;
  counterparty_iban: string | null;
};

type BankTransactionDoc = Stored<BankTransaction>;

const FIELDS = [
  '_id',
  'booking_date',
  'amount_minor',
  'bank_reference',
  'counterparty_name',
  'remittance_info',
  'counterparty_id',
  'counterparty_iban',
  'version',
] as const;

/**
 * Every transaction of the account, the fields above only. On FerretDB 1.x
 * one SQL query on the (org_id,
 * bank_account_id) page index sends just these fields (books-whole.ts
 * readFields): through FerretDB each document costs about 0.3 ms, so a 10k
 * account took 2–4 s and a 100k account over 30 s. The plan sorts what it
 * reads by id, so the order of the rows does not matter.
 */
export async function accountTransactionsForImport(
  db: Db,
  orgId: string,
  bankAccountId: string,
): Promise<ImportedAccountTransaction[]> {
  const docs = await readFields(db, {
    collection: collections(db).bankTransactions.collectionName,
    equalities: { org_id: orgId, bank_account_id: bankAccountId },
    index: 'page',
    fields: FIELDS,
  });
  return docs.map((d) => {
    const doc = d as BankTransactionDoc & { counterparty_iban?: string | null };
    return {
      id: doc._id,
      booking_date: doc.booking_date,
      amount_minor: doc.amount_minor,
      bank_reference: doc.bank_reference ?? null,
      counterparty_name: doc.counterparty_name ?? null,
      remittance_info: doc.remittance_info ?? null,
      counterparty_id: doc.counterparty_id ?? null,
      counterparty_iban: doc.counterparty_iban ?? null,
      version: doc.version,
    };
  });
}

export type { ReferencedTransaction } from './port.js';

/**
 * The account's transactions whose bank reference is one of `references`
 * (docs/guide/statement-import.md "Apply"), in no particular order, through
 * the store port's `accountReferences`. FerretDB 1.x: one SQL query on the
 * btree index (org_id, bank_account_id, bank_reference). MongoDB: chunked
 * `$in` on the index of the same fields. FerretDB without SQL: the account
 * by equality, filtered, because a `$in` there reads the whole organisation
 * (ferretdb/driver-strategy.ts).
 */
export async function accountTransactionsByReference(
  db: Db,
  orgId: string,
  bankAccountId: string,
  references: readonly string[],
): Promise<ReferencedTransaction[]> {
  return (await storeAdapter(db)).accountReferences(orgId, bankAccountId, references);
}
