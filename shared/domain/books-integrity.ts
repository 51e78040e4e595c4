// Rules a books file must satisfy beyond its schema: entries balance, ids are
// unique, and every reference points at a record of the same file. Pure; each
// problem comes with a JSON pointer into the file.
import type { FieldError } from '../errors.js';
import type { BooksFile } from './books-file.js';
import { duplicateCodes } from './chart-of-accounts.js';

export function checkBooksIntegrity(file: BooksFile): FieldError[] {
  const errors: FieldError[] = duplicateCodes(file.accounts ?? []);
  const orgId = file.org.id;

  const idsOf = (
    name: keyof Omit<BooksFile, 'org' | 'accounts'>,
    records: { id: string; org_id?: string }[],
  ): Set<string> => {
    const seen = new Map<string, number>();
    records.forEach((r, i) => {
      const first = seen.get(r.id);
      if (first !== undefined)
        errors.push({ pointer: `/${name}/${i}/id`, message: `duplicates the id of /${name}/${first}` });
      else seen.set(r.id, i);
      if (r.org_id !== undefined && r.org_id !== orgId)
        errors.push({ pointer: `/${name}/${i}/org_id`, message: `must be the file's org ${orgId}` });
    });
    return new Set(seen.keys());
  };

  const entryIds = idsOf('ledger_entries', file.ledger_entries);
  const accountIds = idsOf('bank_accounts', file.bank_accounts);
  const transactionIds = idsOf('bank_transactions', file.bank_transactions);
  idsOf('bank_links', file.bank_links);
  idsOf('inbox_documents', file.inbox_documents);

  const mustExist = (pointer: string, value: string | null | undefined, ids: Set<string>, what: string): void => {
    if (value !== null && value !== undefined && !ids.has(value))
      errors.push({ pointer, message: `refers to ${value}, which is not a ${what} in this file` });
  };

  file.ledger_entries.forEach((entry, i) => {
    let debit = 0;
    let credit = 0;
    for (const line of entry.lines) {
      debit += line.debit_minor;
      credit += line.credit_minor;
    }
    if (!Number.isSafeInteger(debit) || !Number.isSafeInteger(credit)) {
      errors.push({ pointer: `/ledger_entries/${i}/lines`, message: 'line totals exceed the safe integer range' });
    } else if (debit !== credit) {
      errors.push({
        pointer: `/ledger_entries/${i}/lines`,
        message: `does not balance: debits ${debit} ≠ credits ${credit}`,
      });
    }
    mustExist(`/ledger_entries/${i}/reversal_of`, entry.reversal_of, entryIds, 'ledger entry');
    mustExist(`/ledger_entries/${i}/reversed_by`, entry.reversed_by, entryIds, 'ledger entry');
  });
  file.bank_transactions.forEach((txn, i) =>
    mustExist(`/bank_transactions/${i}/bank_account_id`, txn.bank_account_id, accountIds, 'bank account'),
  );
  file.bank_links.forEach((link, i) => {
    mustExist(`/bank_links/${i}/bank_transaction_id`, link.bank_transaction_id, transactionIds, 'bank transaction');
    mustExist(`/bank_links/${i}/ledger_entry_id`, link.ledger_entry_id, entryIds, 'ledger entry');
  });
  return errors;
}
