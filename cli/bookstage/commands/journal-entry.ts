// bookstage entries stage → POST /api/v1/cli/ledger/entries/stage (a journal entry, docs/reference/http-api.md §9.1)
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { readBodyOption, setField } from '../body.js';
import { runStaging, type StagingOptions } from '../call.js';
import { CliError, EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { example, withStaging } from './options.js';
import { topLevel } from './top-level.js';

interface Options extends StagingOptions {
  date?: string;
  description?: string;
  reference?: string;
  counterparty?: string;
  currency?: string;
  line?: JournalLine[];
  bankTransaction?: string;
  document?: string;
  note?: string;
}

interface JournalLine {
  account: string;
  debit_minor: number;
  credit_minor: number;
}

/** `--line ACCOUNT:DEBIT:CREDIT` (minor units), repeatable, in the order given; a bad one is a usage error (exit 2). */
export function lineOption(value: string, previous: JournalLine[] = []): JournalLine[] {
  const m = /^([^:\s]+):(\d+):(\d+)$/.exec(value);
  const debit = m ? Number(m[2]) : NaN;
  const credit = m ? Number(m[3]) : NaN;
  if (!m || !Number.isSafeInteger(debit) || !Number.isSafeInteger(credit))
    throw new CliError(
      `--line must be ACCOUNT:DEBIT:CREDIT in integer minor units (e.g. 6855:350:0), got "${value}"`,
      EXIT.badInput,
    );
  return [...previous, { account: m[1]!, debit_minor: debit, credit_minor: credit }];
}

/** Adds `stage` to the `entries` group (the book reads' list and show: commands/books.ts), or makes the group. */
export function journalEntryCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = program.commands.find((c) => c.name() === 'entries') ?? topLevel(program, 'entries');
  const stage = group
    .command('stage')
    .description(
      'stage a new journal entry for review, optionally booking a bank transaction and attaching an inbox document',
    );
  withStaging(stage)
    .option('--date <date>', 'entry_date: the entry date (YYYY-MM-DD), after the lock date')
    .option('--description <text>', 'description')
    .option('--reference <text>', 'reference: the document number booked')
    .option('--counterparty <id>', 'counterparty_id (a bank fee: the bank)')
    .option('--currency <code>', "currency: the base currency or the bank transaction's")
    .option(
      '--line <account:debit:credit>',
      'a line, in integer minor units (6855:350:0 debits 3.50 to 6855); repeat for each line',
      lineOption,
    )
    .option('--bank-transaction <id>', 'bank_transaction_id: the transaction this entry books (apply links them)')
    .option('--document <id>', 'document_id: the open inbox document it attaches (apply marks it booked)')
    .option('--note <text>', 'note: for the reviewer; not part of the entry id')
    .action(async (opts: Options) => {
      const body = readBodyOption(opts.body);
      setField(body, 'entry_date', opts.date);
      setField(body, 'description', opts.description);
      setField(body, 'reference', opts.reference);
      setField(body, 'counterparty_id', opts.counterparty);
      setField(body, 'currency', opts.currency);
      setField(body, 'lines', opts.line);
      setField(body, 'bank_transaction_id', opts.bankTransaction);
      setField(body, 'document_id', opts.document);
      setField(body, 'note', opts.note);
      done(await runStaging({ method: 'POST', path: pathOf('journal_entry.stage'), body }, opts, io));
    });
  example(
    stage,
    'bookstage entries stage --date 2026-03-02 --description "Bank fee March" --reference FEE-2026-03 --counterparty cp_bank --currency EUR --line 6855:350:0 --line 1600:0:350 --bank-transaction bt_9 --document doc_4',
  );
}
