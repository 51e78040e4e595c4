// A bank statement import (docs/guide/statement-import.md): load the account and
// its transactions (one indexed read), read the file (pure parsers), decide by
// the pure rule. One pending import per account: the subject
// `statement_import:{bank_account_id}`, read only when it can change the
// answer (the pending gate, worker/operation/staging-job.ts).
import { createHash } from 'node:crypto';
import type { BankAccount } from '../../../shared/domain/books.js';
import { refused, type RefusedDecision } from '../../../shared/domain/decision.js';
import {
  StatementParseError,
  StatementRefusal,
  type ParsedStatementFile,
} from '../../../shared/kinds/statement-import/model.js';
import { parseStatementFile } from '../../../shared/kinds/statement-import/parse.js';
import {
  decideStatementImport,
  fileTransactionIds,
  statementImportSubjectKey,
  type KnownCounterparty,
  type StatementImportPlan,
} from '../../../shared/kinds/statement-import/plan.js';
import type { PendingHolder } from '../../../shared/domain/pending-gate.js';
import { findAccount } from '../../../shared/storage/books-read.js';
import { lockKeys } from '../../../shared/storage/plan-locks.js';
import { readStatementUpload } from '../../../shared/storage/statement-uploads.js';
import { highestReservedVersions } from '../../../shared/storage/version-reservations.js';
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
  /** The statement file parsed for the account, or why it cannot be; null without the account. */
  parsed: Parsed | null;
  transactions: ImportedAccountTransaction[];
  pending: PendingHolder[];
  /** The file's transaction ids that a record held before, with the highest version reserved on each. */
  returning: Map<string, number>;
}

type Parsed = { file: ParsedStatementFile; sha256: string } | { refusal: RefusedDecision };

/** The file as the account reads it (its currency), or the refusal of a file that cannot be read. */
function parse(bytes: Buffer, account: BankAccount, input: JobContext<Op>['data']['input']): Parsed {
  try {
    const file = parseStatementFile(bytes, {
      format: input.format,
      encoding: input.encoding,
      csv: input.csv,
      account_currency: account.currency,
    });
    return { file, sha256: createHash('sha256').update(bytes).digest('hex') };
  } catch (err) {
    if (err instanceof StatementParseError)
      return {
        refusal: refused('unreadable_statement', { format: err.format, location: err.location, reason: err.reason }),
      };
    if (err instanceof StatementRefusal) return { refusal: refused(err.code, err.details) };
    throw err;
  }
}

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
  if (!account) return { account, parsed: null, transactions: [], pending: [], returning: new Map() };
  const parsed = parse(file, account, data.input);
  // Versions never go back (docs/design/staged-lifecycle.md "Reverts"): a transaction of the file that a revert
  // removed left its version reservations behind, and returns above them.
  const onAccount = new Set(transactions.map((t) => t.id));
  const ids =
    'file' in parsed
      ? fileTransactionIds(parsed.file, account.id, parsed.sha256).filter((id) => !onAccount.has(id))
      : [];
  const returning =
    ids.length === 0
      ? new Map<string, number>()
      : await highestReservedVersions(db, data.org_id, 'bank_transactions', ids);
  return { account, parsed, transactions, pending: [], returning };
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
    if (books.account === null || books.parsed === null)
      return refused('not_found', { resource: 'Bank account', id: data.input.bank_account_id });
    if ('refusal' in books.parsed) return books.parsed.refusal;
    return decideStatementImport(books.parsed.file, books.parsed.sha256, {
      account: books.account,
      transactions: books.transactions,
      counterparties: knownCounterparties(books.transactions),
      pending: books.pending,
      lock_date: org.lock_date,
      returning: books.returning,
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
