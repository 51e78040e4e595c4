// bookstage jobs show JOB_ID → GET /api/v1/cli/jobs/{job_id}
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { runRequest, type StagingOptions } from '../call.js';
import type { Io } from '../io.js';
import { example, nonNegative, withCommon } from './options.js';
import { topLevel } from './top-level.js';

type Options = Pick<StagingOptions, 'json' | 'profile' | 'retries' | 'follow' | 'timeout'>;

export function jobsCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(topLevel(program, 'jobs'), 'bookstage jobs show job_5f0c0d3e --follow');
  const show = group
    .command('show')
    .argument('<job_id>', 'the job id of a 202 answer')
    .description("the answer of a job: pending (exit 6), or the operation's own answer");
  withCommon(show)
    .option('--follow', 'poll until the job is done (a spinner on a terminal)')
    .option(
      '--timeout <seconds>',
      'with --follow, give up after this long (exit 6); default 300',
      nonNegative('--timeout'),
    )
    .action(async (jobId: string, opts: Options) => {
      done(await runRequest({ method: 'GET', path: pathOf('jobs.show', { job_id: jobId }) }, opts, io));
    });
  example(show, 'bookstage jobs show job_5f0c0d3e --follow');
}
