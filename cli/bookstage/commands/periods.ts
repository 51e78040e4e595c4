// bookstage periods close --through D → POST /api/v1/cli/periods/close/stage
// bookstage periods list|show → GET /api/v1/cli/periods[/{through}] (docs/design/staged-lifecycle.md "Closed periods")
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

interface CloseOptions extends StagingOptions {
  through?: string;
  note?: string;
}

export function periodsCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(
    topLevel(program, 'periods'),
    'bookstage periods close --through 2026-03-31 --note "Q1 closed"',
  );
  const close = group
    .command('close')
    .description('stage the close of every day through a date (the new lock date once applied)');
  withStaging(close)
    .option('--through <date>', 'through: the last day to close (before today, after the lock date)')
    .option('--note <text>', 'note: why the period is closed')
    .action(async (opts: CloseOptions) => {
      const body = readBodyOption(opts.body);
      setField(body, 'through', opts.through);
      setField(body, 'note', opts.note);
      done(await runStaging({ method: 'POST', path: pathOf('period_close.stage'), body }, opts, io));
    });
  example(close, 'bookstage periods close --through 2026-03-31 --dry-run');

  const list = group.command('list').description('list the closed periods by through (read-only)');
  withPaging(list).action(async (opts: PagingOptions) => {
    done(
      await runPaged((cursor) => `${pathOf('periods.list')}${query({ limit: opts.limit, cursor })}`, 'items', opts, io),
    );
  });

  const show = group
    .command('show')
    .argument('<through>', 'the last day of the period (YYYY-MM-DD)')
    .description("one closed period: its stored hash against its records' hash now (read-only)");
  withCommon(show).action(async (through: string, opts: CommonOptions) => {
    done(await runRequest({ method: 'GET', path: pathOf('periods.show', { through }) }, opts, io));
  });
  example(show, 'bookstage periods show 2026-03-31');
}
