// bookstage policy show → GET /api/v1/cli/approval-policy, and
// bookstage policy stage --body FILE → POST /api/v1/cli/approval-policy/stage
// (docs/design/staged-lifecycle.md "Approval policies").
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { readBodyOption } from '../body.js';
import { runRequest, runStaging, type CommonOptions, type StagingOptions } from '../call.js';
import type { Io } from '../io.js';
import { example, withCommon, withStaging } from './options.js';
import { topLevel } from './top-level.js';

interface StageOptions extends StagingOptions {
  agentsMayApprove?: boolean;
}

export function policyCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(
    topLevel(program, 'policy'),
    'bookstage policy show',
    'bookstage policy stage --body policy.json',
  );
  const show = group.command('show').description('the approval policy in force (read-only)');
  withCommon(show).action(async (opts: CommonOptions) => {
    done(await runRequest({ method: 'GET', path: pathOf('approval_policy.show') }, opts, io));
  });

  const stage = group
    .command('stage')
    .description(
      'stage a change of the approval policy: the whole policy to put in force next ({"rules": [...], "agents_may_approve": ..., "unattended": [...]}); a person other than you approves it',
    );
  withStaging(stage)
    .option('--agents-may-approve', 'agents_may_approve: true (on top of --body)')
    .option('--no-agents-may-approve', 'agents_may_approve: false (on top of --body)')
    .action(async (opts: StageOptions) => {
      const body = readBodyOption(opts.body);
      if (opts.agentsMayApprove !== undefined) body.agents_may_approve = opts.agentsMayApprove;
      done(await runStaging({ method: 'POST', path: pathOf('approval_policy.stage'), body }, opts, io));
    });
  example(stage, 'bookstage policy stage --body policy.json --dry-run');
}
