// bookstage inbox duplicates → GET /api/v1/cli/bookkeeping/inbox/duplicates
// bookstage inbox resolve GROUP_ID → POST /api/v1/cli/bookkeeping/inbox/duplicates/{group_id}/resolve/stage
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { CliError, EXIT } from '../exit-codes.js';
import { query, runPaged, runStaging, type PagingOptions, type StagingOptions } from '../call.js';
import { readBodyOption, setField } from '../body.js';
import type { Io } from '../io.js';
import { example, withPaging, withStaging } from './options.js';
import { topLevel } from './top-level.js';

interface Options extends PagingOptions {
  minConfidence?: number;
}
interface ResolveOptions extends StagingOptions {
  keep?: string;
  notDuplicates?: boolean;
  note?: string;
}

function confidence(value: string): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || n < 0 || n > 1)
    throw new CliError(`--min-confidence must be a number from 0 to 1, got "${value}"`, EXIT.badInput);
  return n;
}

export function inboxCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(topLevel(program, 'inbox'), 'bookstage inbox duplicates --min-confidence 0.9');
  const duplicates = group
    .command('duplicates')
    .description('list duplicate groups in the inbox, newest first (read-only)');
  withPaging(duplicates)
    .option('--min-confidence <n>', 'only groups whose confidence is at least this (0–1)', confidence)
    .action(async (opts: Options) => {
      const path = (cursor: string | undefined): string =>
        `${pathOf('inbox_duplicates.list')}${query({ limit: opts.limit, min_confidence: opts.minConfidence, cursor })}`;
      done(await runPaged(path, 'groups', opts, io));
    });
  example(
    duplicates,
    'bookstage inbox duplicates --min-confidence 0.9 --limit 20',
    'bookstage inbox duplicates --all --json',
  );

  const resolve = group
    .command('resolve')
    .argument('<group_id>', 'a duplicate group id (grp_…) as `inbox duplicates` lists it')
    .description(
      'stage the resolution of a duplicate group for review: keep one document and archive the others, or mark them not duplicates',
    );
  withStaging(resolve)
    .option('--keep <document_id>', 'resolution archive_duplicates: keep this member, archive every other one')
    .option(
      '--not-duplicates',
      'resolution not_duplicates: the members are not duplicates and are never grouped together again',
    )
    .option('--note <text>', 'note: why (kept in the plan)')
    .action(async (groupId: string, opts: ResolveOptions) => {
      if (opts.keep !== undefined && opts.notDuplicates)
        throw new CliError('give either --keep DOC or --not-duplicates, not both', EXIT.badInput);
      const body = readBodyOption(opts.body);
      if (opts.keep !== undefined) {
        setField(body, 'resolution', 'archive_duplicates');
        setField(body, 'keep_document_id', opts.keep);
      } else if (opts.notDuplicates) {
        setField(body, 'resolution', 'not_duplicates');
      } else if (opts.body === undefined) {
        throw new CliError('give --keep DOC or --not-duplicates (or a --body)', EXIT.badInput);
      }
      setField(body, 'note', opts.note);
      done(
        await runStaging(
          {
            method: 'POST',
            path: pathOf('inbox_duplicates_resolve.stage', { group_id: groupId }),
            body,
          },
          opts,
          io,
        ),
      );
    });
  example(
    resolve,
    'bookstage inbox resolve grp_0123456789abcdef --keep doc_1 --note "scanned twice"',
    'bookstage inbox resolve grp_0123456789abcdef --not-duplicates',
  );
}
