// The CLI's start: `bookstage --help` as the built CLI runs it (the package's
// `bin`, dist/cli/bookstage/main.js), against `node -e ""` — Node's own start,
// the floor — measured in the same run, interleaved, so a busy machine moves
// both (docs/guide/cli.md).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { median, round } from '../lib/stats.js';

export interface CliStartResult {
  help_ratio: number;
  help_p50_ms: number;
  node_floor_p50_ms: number;
  runs: number;
}

/** Runs of each command per repeat, after one warm-up run of each (file cache). */
const RUNS_PER_REPEAT = 10;

/**
 * The bench's environment without what makes every Node start do more:
 * NODE_OPTIONS, and NODE_EXTRA_CA_CERTS, a certificate bundle Node reads at
 * start, which adds the same time to both commands and so hides the CLI's own.
 */
function startEnv(): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _certs, ...env } = process.env;
  return { ...env, NODE_OPTIONS: '' };
}

function wallMs(args: string[]): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: startEnv() });
  const ms = performance.now() - start;
  if (run.status !== 0)
    throw new Error(
      `cli start: node ${args.join(' ')} exited with ${String(run.status)}: ${run.stderr.toString().slice(0, 300)}`,
    );
  return ms;
}

export function measureCliStart(root: string, repeat: number, smoke: boolean): CliStartResult {
  const cli = join(root, 'dist', 'cli', 'bookstage', 'main.js');
  if (!existsSync(cli)) throw new Error(`cli start: ${cli} is not built (npm run build)`);
  const help = [cli, '--help'];
  const floor = ['-e', ''];
  wallMs(help);
  wallMs(floor);
  const runs = smoke ? 2 : repeat * RUNS_PER_REPEAT;
  const helpTimes: number[] = [];
  const floorTimes: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    floorTimes.push(wallMs(floor));
    helpTimes.push(wallMs(help));
  }
  const helpP50 = median(helpTimes);
  const floorP50 = median(floorTimes);
  return {
    help_ratio: round(helpP50 / floorP50),
    help_p50_ms: round(helpP50),
    node_floor_p50_ms: round(floorP50),
    runs,
  };
}
