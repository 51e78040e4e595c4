// What `bookstage` loads to start (docs/design/performance.md "CLI start and
// book pages"): the modules of the command its line names and the routes'
// paths; for the root help, no command's module. The route table's schemas,
// the kinds' registry behind them, the answer renderers and node:crypto are
// loaded by the call that needs them, never by a command's definition or its
// help.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_MAIN } from './run-cli.js';

/**
 * An ESM load hook that appends each module's URL to `file`, one per line.
 * why a file: the hooks run on a thread of their own, whose stderr reaches
 * the process's only through the main thread, and the CLI exits right after
 * its help; lines still on their way were lost on a busy machine.
 */
const hook = (file: string): string => `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  const loaded = await next(url, context);
  appendFileSync(${JSON.stringify(file)}, url + '\\n');
  return loaded;
}`;
const register = (file: string): string => `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook(file))}`)});`;

/** The modules the CLI loads for `args`, as paths under dist/ or `node:` names. */
function modulesLoaded(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'bookstage-cli-start-'));
  const file = join(dir, 'loaded');
  try {
    const run = spawnSync(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(register(file))}`, CLI_MAIN, ...args],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(run.status, run.stderr).to.equal(0);
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.replace(/^file:\/\/.*?\/dist\//, ''));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const AT_START_ONLY_WHEN_CALLED = [
  'shared/contract/routes.js',
  'shared/kinds/registry.js',
  'cli/bookstage/output/answer.js',
  'node:crypto',
];

const commandModules = (loaded: string[]): string[] =>
  loaded.filter((m) => m.startsWith('cli/bookstage/commands/') || m.startsWith('cli/bookstage/mcp/'));

describe('the CLI starts with the command it runs, not the route table', () => {
  it('bookstage --help loads no command module, only the top-level names', () => {
    const loaded = modulesLoaded(['--help']);
    expect(loaded).to.include('cli/bookstage/main.js');
    expect(commandModules(loaded)).to.deep.equal(['cli/bookstage/commands/top-level.js']);
    expect(loaded.filter((m) => m.startsWith('shared/'))).to.deep.equal([]);
  });

  it("bookstage entries --help loads the book reads' module and the journal entry's, and no other command's", () => {
    expect(commandModules(modulesLoaded(['entries', '--help'])).sort()).to.deep.equal([
      'cli/bookstage/commands/books.js',
      'cli/bookstage/commands/journal-entry.js',
      'cli/bookstage/commands/options.js',
      'cli/bookstage/commands/top-level.js',
    ]);
  });

  for (const args of [
    ['staged', 'approve', '--help'],
    ['statements', 'import', '--help'],
    ['links', 'repair', '--help'],
  ]) {
    it(`bookstage ${args.join(' ')} loads its command's module, the routes' paths and none of the schemas`, () => {
      const loaded = modulesLoaded(args);
      expect(commandModules(loaded)).to.include(`cli/bookstage/commands/${args[0]}.js`);
      expect(commandModules(loaded)).to.not.include('cli/bookstage/commands/books.js');
      expect(loaded).to.include('shared/contract/route-paths.js');
      expect(loaded.filter((m) => AT_START_ONLY_WHEN_CALLED.includes(m))).to.deep.equal([]);
      expect(loaded.filter((m) => m.startsWith('shared/schemas/') || m.endsWith('/schema.js'))).to.deep.equal([]);
    });
  }
});
