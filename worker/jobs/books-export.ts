// The books export (docs/reference/book-reads.md "Export"): the whole
// organisation as an hledger or beancount file, written to the store in
// parts as it is made (shared/storage/book-exports.ts); the job answers only
// where the parts are. The journal and its syntax are the domain's
// (shared/domain/ledger-export/); which applied operation wrote a record comes
// from the operations' journals (shared/storage/applied-writes.ts).
import type { Db } from 'mongodb';
import { beancountLines } from '../../shared/domain/ledger-export/beancount.js';
import { hledgerLines } from '../../shared/domain/ledger-export/hledger.js';
import { exportJournal } from '../../shared/domain/ledger-export/journal.js';
import type { BooksExportInput, BooksExportResult } from '../../shared/queue/read-jobs.js';
import { saveExport } from '../../shared/storage/book-exports.js';
import { readAppliedWrites } from '../../shared/storage/applied-writes.js';
import { findOrg } from '../../shared/storage/books-read.js';
import { readExportBooks } from '../../shared/storage/books-whole.js';
import { readChart } from '../../shared/storage/ledger-accounts.js';

export async function exportBooks(db: Db, orgId: string, input: BooksExportInput): Promise<BooksExportResult> {
  const [org, chart, operations] = await Promise.all([
    findOrg(db, orgId),
    readChart(db, orgId),
    readAppliedWrites(db, orgId),
  ]);
  const books = await readExportBooks(db, orgId, org?.settlement_accounts ?? []);
  const journal = exportJournal({ ...books, org_id: orgId, through: input.through, chart, operations });
  return saveExport(db, orgId, input.format === 'hledger' ? hledgerLines(journal) : beancountLines(journal));
}
