// The CLI defines only the top-level command its line names
// (cli/bookstage/define-commands.ts): the root help lists every top-level
// command from commands/top-level.ts alone, so each module must define its
// commands under those names and descriptions, and each name's definers must
// define it.
import { expect } from 'chai';
import { Command } from 'commander';
import { DEFINERS, defineCommands, namedTopLevel } from '../../cli/bookstage/define-commands.js';
import { TOP_LEVEL, TOP_LEVEL_NAMES } from '../../cli/bookstage/commands/top-level.js';
import type { Io } from '../../cli/bookstage/io.js';

const io = {} as Io;
const done = (): void => undefined;
const listed = (program: Command): Array<[string, string]> => program.commands.map((c) => [c.name(), c.description()]);

describe('the CLI defines the command its line names', () => {
  it('names the first word, or the word after help, when it is a top-level command', () => {
    expect(namedTopLevel(['staged', 'approve', 'stg_1'])).to.equal('staged');
    expect(namedTopLevel(['--help'])).to.equal(null);
    expect(namedTopLevel([])).to.equal(null);
    expect(namedTopLevel(['-V'])).to.equal(null);
    expect(namedTopLevel(['help'])).to.equal(null);
    expect(namedTopLevel(['help', 'ledger-accounts'])).to.equal('ledger-accounts');
    expect(namedTopLevel(['--help', 'links'])).to.equal('links');
    expect(namedTopLevel(['stagd', 'list'])).to.equal(null);
    expect(namedTopLevel(['toString'])).to.equal(null);
  });

  it('without a name, lists every top-level command by its description alone', async () => {
    const program = new Command('bookstage');
    await defineCommands(program, ['--help'], io, done);
    expect(listed(program)).to.deep.equal(Object.entries(TOP_LEVEL));
    expect(program.commands.every((c) => c.commands.length === 0)).to.equal(true);
  });

  it('every module together defines exactly the top-level commands, as top-level.ts describes them', async () => {
    const program = new Command('bookstage');
    const loaded = new Set<unknown>();
    for (const name of TOP_LEVEL_NAMES)
      for (const load of DEFINERS[name]) {
        const define = await load();
        if (!loaded.has(define)) define(program, io, done);
        loaded.add(define);
      }
    expect(listed(program).sort()).to.deep.equal(Object.entries(TOP_LEVEL).sort());
  });

  for (const name of TOP_LEVEL_NAMES)
    it(`bookstage ${name} defines ${name}, with what is under it`, async () => {
      const program = new Command('bookstage');
      await defineCommands(program, [name, '--help'], io, done);
      const command = program.commands.find((c) => c.name() === name);
      expect(command?.description()).to.equal(TOP_LEVEL[name]);
      expect(command!.commands.length + command!.options.length).to.be.above(0);
    });
});
