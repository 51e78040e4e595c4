// The bench's command line, and which runs replace bench/results/latest.json:
// only a full run does (bench/README.md "Running it"), so a quick run of one
// section never stands in for the last full table.
import { expect } from 'chai';
import { join } from 'node:path';
import { isFullRun, parseArgs, resultFiles } from '../../bench/lib/options.js';

const ROOT = '/project';
const LATEST = join(ROOT, 'bench', 'results', 'latest.json');
const LAST_RUN = join(ROOT, '.bookstage', 'bench', 'last-run.json');

describe('bench options', () => {
  it('defaults to every section at sizes 1k, 10k and 100k, three repeats, 60 minutes', () => {
    const o = parseArgs([]);
    expect(o).to.deep.equal({
      sizes: [1000, 10000, 100000],
      repeat: 3,
      json: null,
      only: null,
      smoke: false,
      maxMinutes: 60,
    });
    expect(isFullRun(o)).to.equal(true);
  });

  it('a full run writes latest.json, and --json FILE beside it', () => {
    expect(resultFiles(parseArgs([]), ROOT)).to.deep.equal([LATEST]);
    expect(resultFiles(parseArgs(['--json', '/tmp/a.json', '--repeat', '5']), ROOT)).to.deep.equal([
      LATEST,
      '/tmp/a.json',
    ]);
  });

  it('a run of some sections, other sizes, fewer repeats or --smoke writes last-run.json, not latest.json', () => {
    for (const argv of [['--only', 'repair'], ['--sizes', '1000,10000'], ['--repeat', '1'], ['--smoke']]) {
      expect(isFullRun(parseArgs(argv)), argv.join(' ')).to.equal(false);
      expect(resultFiles(parseArgs(argv), ROOT), argv.join(' ')).to.deep.equal([LAST_RUN]);
    }
    expect(resultFiles(parseArgs(['--only', 'repair', '--json', '/tmp/r.json']), ROOT)).to.deep.equal([
      LAST_RUN,
      '/tmp/r.json',
    ]);
  });

  it('refuses sizes, repeats and minutes it cannot run', () => {
    expect(() => parseArgs(['--sizes', '1000,abc'])).to.throw('--sizes');
    expect(() => parseArgs(['--repeat', '0'])).to.throw('--repeat');
    expect(() => parseArgs(['--max-minutes', 'soon'])).to.throw('--max-minutes');
  });
});
