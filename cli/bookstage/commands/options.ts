// The options every command of a kind shares, added to each command so that
// each one's --help lists them.
import { Command } from 'commander';
import { integerOption } from '../body.js';
import { CliError, EXIT } from '../exit-codes.js';

export const nonNegative =
  (name: string) =>
  (value: string): number => {
    const n = integerOption(name)(value);
    if (n < 0) throw new CliError(`${name} must be 0 or more, got ${value}`, EXIT.badInput);
    return n;
  };

export function withCommon(cmd: Command): Command {
  return cmd
    .option('--json', "print the API's envelope exactly as received, instead of a summary")
    .option('--profile <name>', 'use this profile of the config file (see `bookstage profile set`)')
    .option(
      '--retries <n>',
      'retries on network failures and retryable answers, with back-off',
      nonNegative('--retries'),
    );
}

/** The options of a call that is a job: its Idempotency-Key, and how long to wait for it (it may answer 202). */
export function withJobWait(cmd: Command): Command {
  return cmd
    .option(
      '--idempotency-key <key>',
      'the Idempotency-Key to send (default: a new one per invocation, reused on its retries)',
    )
    .option(
      '--wait <seconds>',
      'wait up to this long for the plan before answering 202 (Prefer: wait=N)',
      nonNegative('--wait'),
    )
    .option('--follow', 'on 202, poll the job until it is done (a spinner on a terminal)')
    .option(
      '--timeout <seconds>',
      'with --follow, give up after this long (exit 6); default 300',
      nonNegative('--timeout'),
    );
}

/** The options of a call that may answer 202; a staging call (not a review or apply: `dryRun: false`) also takes --dry-run. */
export function withStaging(cmd: Command, { dryRun = true }: { dryRun?: boolean } = {}): Command {
  withJobWait(
    withCommon(cmd).option(
      '--body <file>',
      'the whole JSON request body from a file, or - for stdin; flags set fields on top of it',
    ),
  );
  return dryRun
    ? cmd.option(
        '--dry-run',
        'compute and print the plan without staging it: nothing is stored, no lock, no Idempotency-Key (?dry_run=true)',
      )
    : cmd;
}

export function withPaging(cmd: Command): Command {
  return withCommon(cmd)
    .option('--limit <n>', 'items per page', nonNegative('--limit'))
    .option('--cursor <cursor>', 'the next_cursor of a previous page')
    .option('--all', 'follow next_cursor to the last page');
}

export const example = (cmd: Command, ...lines: string[]): Command =>
  cmd.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
