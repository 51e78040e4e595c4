// bookstage reconcile stage → POST /api/v1/cli/bank-matches/reconcile/stage
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { integerOption, listOption, readBodyOption, setField } from '../body.js';
import { runStaging, type StagingOptions } from '../call.js';
import type { Io } from '../io.js';
import { example, withStaging } from './options.js';
import { topLevel } from './top-level.js';

interface Options extends StagingOptions {
  bankAccount?: string;
  endDate?: string;
  closingBalance?: number;
  currency?: string;
  reference?: string;
  transactions?: string[];
  note?: string;
}

export function reconcileCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(
    topLevel(program, 'reconcile'),
    'bookstage reconcile stage --bank-account ba_main --end-date 2026-02-28 --closing-balance 56000 --currency EUR --transactions bt_1,bt_2',
  );
  const stage = group.command('stage').description('check a bank statement and stage its reconciliation for review');
  withStaging(stage)
    .option('--bank-account <id>', 'bank_account_id: the account the statement belongs to')
    .option('--end-date <date>', 'statement.end_date: last day the statement covers (YYYY-MM-DD)')
    .option(
      '--closing-balance <minor>',
      'statement.closing_balance_minor: in integer minor units (56000 = 560.00 EUR)',
      integerOption('--closing-balance'),
    )
    .option('--currency <code>', "statement.currency: ISO 4217, the account's currency")
    .option('--reference <text>', 'statement.reference: e.g. the statement number')
    .option(
      '--transactions <ids>',
      'transaction_ids: comma-separated bank transaction ids the statement clears',
      listOption,
    )
    .option('--note <text>', 'note: for the reviewer, not part of the plan')
    .action(async (opts: Options) => {
      const body = readBodyOption(opts.body);
      setField(body, 'bank_account_id', opts.bankAccount);
      setField(body, 'statement.end_date', opts.endDate);
      setField(body, 'statement.closing_balance_minor', opts.closingBalance);
      setField(body, 'statement.currency', opts.currency);
      setField(body, 'statement.reference', opts.reference);
      setField(body, 'transaction_ids', opts.transactions);
      setField(body, 'note', opts.note);
      done(await runStaging({ method: 'POST', path: pathOf('bank_reconcile.stage'), body }, opts, io));
    });
  example(
    stage,
    'bookstage reconcile stage --bank-account ba_main --end-date 2026-02-28 --closing-balance 56000 --currency EUR --transactions bt_1,bt_2',
    'cat statement.json | bookstage reconcile stage --body - --json',
  );
}
