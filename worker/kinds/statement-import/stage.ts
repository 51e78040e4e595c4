// A bank statement import (docs/guide/statement-import.md): load the account and
// its transactions (one indexed read), read the file (pure parsers), decide by
// the pure rule. One pending import per account: the subject
// `statement_import:{bank_account_id}`, read only when it can change the
// answer (the pending gate, worker/operation/staging-job.ts).
import { createHash } from 'node:crypto';
import type { BankAccount } from '../../../shared/domain/books.js';
import { refused } from '../../../shared/domain/decision.js';
import { StatementParseError, StatementRefusal } from '../../../shared/kinds/statement-import/model.js';
import { parseStatementFile } from '../../../shared/kinds/statement-import/parse.js';
import {
  decideStatementImport,
  type KnownCounterparty,
  type StatementImportPlan,
} from '../../../shared/kinds/statement-import/plan.js';
import type { PendingHolder } from '../../../shared/domain/pending-gate.js';
import { findAccount } from '../../../shared/storage/books-read.js';
import { lockKeys } from '../../../shared/storage/plan-locks.js';
import { readStatementUpload } from '../../../shared/storage/statement-uploads.js';
import { accountContext } from '../../../shared/domain/plan-context.js';
import {
  accountTransactionsForImport,
  type ImportedAccountTransaction,
} from '../../../shared/storage/statement-import-read.js';
import type { JobContext } from '../../job-context.js';
import { stagingJob } from '../../operation/staging-job.js';

type Op = 'statement_import.stage';

interface Books {
  account: BankAccount | null;
  /** The statement file, read from the store where the API left it (the job carries only its id). */
  file: Buffer;
  transactions: ImportedAccountTransaction[];
  pending: PendingHolder[];
}

export const statementImportSubjectKey = (bankAccountId: string): string => `statement_import:${bankAccountId}`;

/**
 * The job's file: read from the store where the API left it; a job queued by
 * the API before uploads (docs/operating/backup-and-upgrade.md) still
 * carries it as base64.
 */
function jobFile({ db, data }: JobContext<Op>): Promise<Buffer> {
  const { content_base64: legacy } = data.input as { content_base64?: unknown };
  if (typeof legacy === 'string') return Promise.resolve(Buffer.from(legacy, 'base64'));
  return readStatementUpload(db, data.org_id, data.input.file.upload_id);
}

async function load(ctx: JobContext<Op>): Promise<Books> {
  const { db, data } = ctx;
  const accountId = data.input.bank_account_id;
  const [account, transactions, file] = await Promise.all([
    findAccount(db, data.org_id, accountId),
    accountTransactionsForImport(db, data.org_id, accountId),
    jobFile(ctx),
  ]);
  return { account, file, transactions: account ? transactions : [], pending: [] };
}

/** The counterparties the account's transactions name: each id with its latest name (by booking date, id) and every IBAN seen for it. */
export function knownCounterparties(transactions: readonly ImportedAccountTransaction[]): KnownCounterparty[] {
  const byId = new Map<string, { name: string; seen: string; ibans: Set<string> }>();
  for (const t of transactions) {
    if (t.counterparty_id === null) continue;
    const cp = byId.get(t.counterparty_id) ?? { name: '', seen: '', ibans: new Set<string>() };
    const key = `${t.booking_date}\u0000${t.id}`;
    if (key > cp.seen && t.counterparty_name) {
      cp.seen = key;
      cp.name = t.counterparty_name;
    }
    if (t.counterparty_iban) cp.ibans.add(t.counterparty_iban);
    byId.set(t.counterparty_id, cp);
  }
  return [...byId.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, cp]) => ({ id, name: cp.name, ibans: [...cp.ibans].sort() }));
}

export const stageStatementImport = stagingJob<Op, Books, StatementImportPlan>({
  kind: 'statement_import',
  load,
  decide: (books, org, { data }) => {
    const { input } = data;
    if (books.account === null) return refused('not_found', { resource: 'Bank account', id: input.bank_account_id });
    const bytes = books.file;
    let file;
    try {
      file = parseStatementFile(bytes, {
        format: input.format,
        encoding: input.encoding,
        csv: input.csv,
        account_currency: books.account.currency,
      });
    } catch (err) {
      if (err instanceof StatementParseError)
        return refused('unreadable_statement', { format: err.format, location: err.location, reason: err.reason });
      if (err instanceof StatementRefusal) return refused(err.code, err.details);
      throw err;
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    return decideStatementImport(file, sha256, {
      account: books.account,
      transactions: books.transactions,
      counterparties: knownCounterparties(books.transactions),
      pending: books.pending,
      lock_date: org.lock_date,
    });
  },
  // The account the file is imported into; the plan itself lists every new and skipped entry in full.
  context: (books) => (books.account ? { bank_account: accountContext(books.account) } : {}),
  pendingGate: {
    keys: (_books, { data }) =>
      lockKeys(data.org_id, {
        subject_key: statementImportSubjectKey(data.input.bank_account_id),
        entry_ids: [],
        transaction_ids: [],
      }),
    withHolders: (books, holders) => ({ ...books, pending: holders }),
  },
});
