// bookstage inbox duplicates → GET /api/v1/cli/bookkeeping/inbox/duplicates
import type { Command } from 'commander';
import { CliError, EXIT } from '../exit-codes.js';
import { query, runPaged, type PagingOptions } from '../call.js';
import type { Io } from '../io.js';
import { example, withPaging } from './options.js';

interface Options extends PagingOptions { minConfidence?: number }

function confidence(value: string): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || n < 0 || n > 1) throw new CliError(`--min-confidence must be a number from 0 to 1, got "${value}"`, EXIT.badInput);
  return n;
}

export function inboxCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(program.command('inbox').description('the receipts inbox'), 'bookstage inbox duplicates --min-confidence 0.9');
  const duplicates = group.command('duplicates').description('list duplicate groups in the inbox, newest first (read-only)');
  withPaging(duplicates)
    .option('--min-confidence <n>', 'only groups whose confidence is at least this (0–1)', confidence)
    .action(async (opts: Options) => {
      const path = (cursor: string | undefined): string =>
        `/api/v1/cli/bookkeeping/inbox/duplicates${query({ limit: opts.limit, min_confidence: opts.minConfidence, cursor })}`;
      done(await runPaged(path, 'groups', opts, io));
    });
  example(duplicates, 'bookstage inbox duplicates --min-confidence 0.9 --limit 20', 'bookstage inbox duplicates --all --json');
}
