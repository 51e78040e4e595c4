// What a statement import reads of an account (docs/guide/statement-import.md):
// every transaction of the account, only the fields the duplicate rules, the
// balance check and the counterparty match read, by the (org_id,
// bank_account_id, …) index; one query, whatever the account's size.
import type { Db } from 'mongodb';
import type { ExistingTransaction } from '../domain/statement-import/plan.js';
import { collections } from './collections.js';

export type ImportedAccountTransaction = ExistingTransaction & {
  version: number;
  counterparty_id: string | null;
  counterparty_iban: string | null;
};

const PROJECTION = {
  _id: 1, booking_date: 1, amount_minor: 1, bank_reference: 1, counterparty_name: 1, remittance_info: 1, counterparty_id: 1, counterparty_iban: 1, version: 1,
} as const;

export async function accountTransactionsForImport(db: Db, orgId: string, bankAccountId: string): Promise<ImportedAccountTransaction[]> {
  const docs = await collections(db).bankTransactions.find({ org_id: orgId, bank_account_id: bankAccountId }, { projection: PROJECTION }).toArray();
  return docs.map((d) => {
    const doc = d as typeof d & { counterparty_iban?: string | null };
    return {
      id: doc._id, booking_date: doc.booking_date, amount_minor: doc.amount_minor, bank_reference: doc.bank_reference ?? null,
      counterparty_name: doc.counterparty_name ?? null, remittance_info: doc.remittance_info ?? null,
      counterparty_id: doc.counterparty_id ?? null, counterparty_iban: doc.counterparty_iban ?? null, version: doc.version,
    };
  });
}
