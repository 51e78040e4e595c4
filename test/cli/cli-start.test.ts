// What `bookstage` loads to start (docs/design/performance.md "CLI start and
// book pages"): its commands and the routes' paths. The route table's schemas,
// the kinds' registry behind them, the answer renderers and node:crypto are
// loaded by the call that needs them, never by a command's definition or its
// help.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { CLI_MAIN } from './run-cli.js';

/** An ESM load hook that writes each module's URL to stderr, one per line. */
const HOOK = `export async function load(url, context, next) {
  const loaded = await next(url, context);
  process.stderr.write('loaded ' + url + '\\n');
  return loaded;
}`;
const REGISTER = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});`;

/** The modules the CLI loads for `args`, as paths under dist/ or `node:` names. */
function modulesLoaded(args: string[]): string[] {
  const run = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, CLI_MAIN, ...args],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  expect(run.status, run.stderr).to.equal(0);
  return run.stderr
    .split('\n')
    .filter((line) => line.startsWith('loaded '))
    .map((line) => line.slice('loaded '.length).replace(/^file:\/\/.*?\/dist\//, ''));
}

const AT_START_ONLY_WHEN_CALLED = [
  'shared/contract/routes.js',
  'shared/kinds/registry.js',
  'cli/bookstage/output/answer.js',
  'node:crypto',
];

describe('the CLI starts with its commands, not the route table', () => {
  for (const args of [['--help'], ['staged', 'approve', '--help'], ['statements', 'import', '--help']]) {
    it(`bookstage ${args.join(' ')} loads the routes' paths and none of the schemas`, () => {
      const loaded = modulesLoaded(args);
      expect(loaded).to.include('cli/bookstage/main.js');
      expect(loaded).to.include('shared/contract/route-paths.js');
      expect(loaded.filter((m) => AT_START_ONLY_WHEN_CALLED.includes(m))).to.deep.equal([]);
      expect(loaded.filter((m) => m.startsWith('shared/schemas/') || m.endsWith('/schema.js'))).to.deep.equal([]);
    });
  }
});
