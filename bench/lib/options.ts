// The bench's command line (bench/README.md "Running it"), and where a run's
// figures go: bench/results/latest.json is the last full run's, so a run of
// some sections, at other sizes or repeats, or a smoke run writes
// .bookstage/bench/last-run.json instead (and --json FILE either way).
import { join } from 'node:path';

export interface Options {
  sizes: number[];
  repeat: number;
  json: string | null;
  only: Set<string> | null;
  smoke: boolean;
  maxMinutes: number;
}

const DEFAULT_SIZES = '1000,10000,100000';
const DEFAULT_REPEAT = 3;

export function parseArgs(argv: string[]): Options {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sizes = (value('sizes') ?? DEFAULT_SIZES).split(',').map(Number);
  if (sizes.some((s) => !Number.isSafeInteger(s) || s < 10)) throw new Error('--sizes: comma-separated integers ≥ 10');
  const repeat = Number(value('repeat') ?? DEFAULT_REPEAT);
  if (!Number.isSafeInteger(repeat) || repeat < 1) throw new Error('--repeat: an integer ≥ 1');
  const maxMinutes = Number(value('max-minutes') ?? 60);
  if (!(maxMinutes > 0)) throw new Error('--max-minutes: a number of minutes > 0');
  const only = value('only');
  return {
    sizes,
    repeat,
    json: value('json') ?? null,
    only: only ? new Set(only.split(',')) : null,
    smoke: argv.includes('--smoke'),
    maxMinutes,
  };
}

/** Whether the run measures what latest.json holds: every section, at the default sizes, at least the default repeats. */
export function isFullRun(options: Options): boolean {
  return (
    !options.smoke &&
    options.only === null &&
    options.repeat >= DEFAULT_REPEAT &&
    options.sizes.join(',') === DEFAULT_SIZES
  );
}

/** The files a run writes its figures to. */
export function resultFiles(options: Options, root: string): string[] {
  const own = isFullRun(options)
    ? join(root, 'bench', 'results', 'latest.json')
    : join(root, '.bookstage', 'bench', 'last-run.json');
  return [...new Set([own, ...(options.json ? [options.json] : [])])];
}
