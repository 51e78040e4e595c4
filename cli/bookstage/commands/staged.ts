// bookstage staged list|show|approve|reject|apply|revert → /api/v1/cli/staged-operations…
// (the review and apply contract: docs/design/staged-lifecycle.md). approve, reject
// and apply are jobs on the server, with the staging calls' Idempotency-Key,
// Prefer: wait and 202 rules, so they share runStaging.
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { STAGED_KINDS } from '../../../shared/domain/staged-kind.js';
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

interface ListOptions extends PagingOptions {
  status?: string;
  kind?: string;
  createdBy?: string;
}
interface DecisionOptions extends StagingOptions {
  note?: string;
}

export function stagedCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(
    topLevel(program, 'staged'),
    'bookstage staged list --status staged',
    'bookstage staged approve stg_0123abcd',
  );

  const list = group.command('list').description('staged operations you can see, newest first');
  withPaging(list)
    .option(
      '--status <status>',
      'only this status: staged, approved, applying, applied, rejected, expired, failed, stale',
    )
    .option('--kind <kind>', `only this kind: ${STAGED_KINDS.join(', ')}`)
    .option('--created-by <actor>', 'only operations this actor staged')
    .action(async (opts: ListOptions) => {
      done(
        await runPaged(
          (cursor) =>
            `${pathOf('staged_operations.list')}${query({ status: opts.status, kind: opts.kind, created_by: opts.createdBy, limit: opts.limit, cursor })}`,
          'items',
          opts,
          io,
        ),
      );
    });
  example(list, `bookstage staged list --status staged --kind ${STAGED_KINDS[0]}`);

  const show = group
    .command('show')
    .argument('<id>', 'a staged operation id (stg_…)')
    .description('one staged operation: its plan, status and history');
  withCommon(show).action(async (id: string, opts: CommonOptions) => {
    done(await runRequest({ method: 'GET', path: pathOf('staged_operations.show', { id }) }, opts, io));
  });
  example(show, 'bookstage staged show stg_0123abcd');

  // The body of each: approve takes an optional note, reject a required one (the API refuses it
  // without: 400, exit 2), apply none (its schema has no fields).
  for (const [name, what, note] of [
    [
      'approve',
      'approve a staged operation (not its creator, when the org requires a distinct approver)',
      "note kept in the operation's history",
    ],
    [
      'reject',
      'reject a staged or approved operation; it releases its locks',
      "why (required): kept in the operation's history",
    ],
    ['apply', 'apply an approved operation to the books, once (202 while it runs: --wait, --follow)', null],
  ] as const) {
    const cmd = group.command(name).argument('<id>', 'a staged operation id (stg_…)').description(what);
    withStaging(cmd, { dryRun: false });
    cmd.option(
      '--minimal',
      'answer the operation without its plan, preconditions and context (Prefer: return=minimal)',
    );
    if (note) cmd.option('--note <text>', note);
    cmd.action(async (id: string, opts: DecisionOptions) => {
      const body = readBodyOption(opts.body);
      setField(body, 'note', opts.note);
      done(await runStaging({ method: 'POST', path: pathOf(`staged_operations.${name}`, { id }), body }, opts, io));
    });
    example(
      cmd,
      name === 'apply'
        ? 'bookstage staged apply stg_0123abcd --follow'
        : `bookstage staged ${name} stg_0123abcd --note "checked against the statement"`,
    );
  }

  // A revert is a staging of its own (docs/design/staged-lifecycle.md "Reverts"): reviewed and applied like any other.
  const revert = group
    .command('revert')
    .argument('<id>', 'the applied staged operation to revert (stg_…)')
    .description('stage the revert of an applied operation: every record its apply wrote, back as it was');
  withStaging(revert)
    .option('--note <text>', 'why: kept with the staged revert')
    .option('--reversal-date <date>', "a journal entry's revert: date of the reversing entry (default today, UTC)")
    .action(async (id: string, opts: DecisionOptions & { reversalDate?: string }) => {
      const body = readBodyOption(opts.body);
      setField(body, 'note', opts.note);
      setField(body, 'reversal_date', opts.reversalDate);
      done(await runStaging({ method: 'POST', path: pathOf('revert.stage', { id }), body }, opts, io));
    });
  example(revert, 'bookstage staged revert stg_0123abcd --note "reconciled against the wrong statement"');
}
