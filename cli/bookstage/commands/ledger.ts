// bookstage ledger reverse ENTRY_ID → POST /api/v1/cli/ledger/entries/{entry_id}/reverse/stage
// bookstage ledger trial-balance [--as-of DATE] → GET /api/v1/cli/ledger/trial-balance (docs/reference/book-reads.md)
// bookstage ledger-accounts list → GET /api/v1/cli/ledger/accounts (the chart of accounts, docs/reference/book-reads.md)
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { readBodyOption, setField } from '../body.js';
import {
  query,
  runPaged,
  runRequest,
  runStaging,
  type CommonOptions,
  type PagingOptions,
  type StagingOptions,
} from '../call.js';
import type { Io } from '../io.js';
import { example, withCommon, withPaging, withStaging } from './options.js';
import { topLevel } from './top-level.js';

interface Options extends StagingOptions {
  reversalDate?: string;
  reason?: string;
}

export function ledgerCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(topLevel(program, 'ledger'), 'bookstage ledger reverse le_12 --reason "booked twice"');
  const reverse = group
    .command('reverse')
    .argument('<entry_id>', 'the ledger entry to reverse')
    .description('stage the reversal of a ledger entry');
  withStaging(reverse)
    .option('--reversal-date <date>', 'reversal_date: date of the reversing entry (default today, UTC)')
    .option('--reason <text>', 'reason: why the entry is reversed')
    .action(async (entryId: string, opts: Options) => {
      const body = readBodyOption(opts.body);
      setField(body, 'reversal_date', opts.reversalDate);
      setField(body, 'reason', opts.reason);
      done(
        await runStaging(
          { method: 'POST', path: pathOf('ledger_reversal.stage', { entry_id: entryId }), body },
          opts,
          io,
        ),
      );
    });
  example(reverse, 'bookstage ledger reverse le_12 --reversal-date 2026-11-01 --reason "booked twice"');

  const balance = group
    .command('trial-balance')
    .description('per account and currency: debit and credit totals and the balance, up to a day (read-only)');
  withCommon(balance)
    .option('--as-of <date>', 'as_of: postings dated on or before this day (default today, UTC)')
    .action(async (opts: CommonOptions & { asOf?: string }) => {
      done(
        await runRequest(
          { method: 'GET', path: `${pathOf('ledger.trial_balance')}${query({ as_of: opts.asOf })}` },
          opts,
          io,
        ),
      );
    });
  example(balance, 'bookstage ledger trial-balance --as-of 2026-03-31');

  const chart = topLevel(program, 'ledger-accounts');
  const accounts = chart
    .command('list')
    .description('list the chart of accounts by code, inactive ones included (read-only)');
  withPaging(accounts).action(async (opts: PagingOptions) => {
    done(
      await runPaged(
        (cursor) => `${pathOf('ledger_accounts.list')}${query({ limit: opts.limit, cursor })}`,
        'items',
        opts,
        io,
      ),
    );
  });
  example(accounts, 'bookstage ledger-accounts list --all');
}
