// bookstage links repair → POST /api/v1/cli/bank-matches/ledger-link-repair/stage
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { readBodyOption, setField } from '../body.js';
import { runStaging, type StagingOptions } from '../call.js';
import type { Io } from '../io.js';
import { example, withStaging } from './options.js';
import { topLevel } from './top-level.js';

interface Options extends StagingOptions {
  bankAccount?: string;
  counterparty?: string;
  asOf?: string;
  note?: string;
}

export function linksCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(
    topLevel(program, 'links'),
    'bookstage links repair --bank-account ba_main --counterparty cp_1',
  );
  const repair = group
    .command('repair')
    .description("stage a FIFO repair of one counterparty's links on one bank account");
  withStaging(repair)
    .option('--bank-account <id>', 'bank_account_id: the bank account whose transactions are repaired')
    .option('--counterparty <id>', 'counterparty_id: whose transactions and entries are re-linked')
    .option(
      '--as-of <date>',
      'as_of: transactions and entries dated on or before this day are in its record set (default today, UTC)',
    )
    .option('--note <text>', 'note: for the reviewer, not part of the plan')
    .action(async (opts: Options) => {
      const body = readBodyOption(opts.body);
      setField(body, 'bank_account_id', opts.bankAccount);
      setField(body, 'counterparty_id', opts.counterparty);
      setField(body, 'as_of', opts.asOf);
      setField(body, 'note', opts.note);
      done(await runStaging({ method: 'POST', path: pathOf('ledger_link_repair.stage'), body }, opts, io));
    });
  example(repair, 'bookstage links repair --bank-account ba_main --counterparty cp_1 --as-of 2026-12-31');
}
