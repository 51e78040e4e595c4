#!/usr/bin/env node
// `bookstage`: the command-line client of the bookstage API (docs/guide/cli.md). Every command is a thin wrapper of one endpoint; exit
// codes are the table in exit-codes.ts.
import { Command, CommanderError } from 'commander';
import { CliError, EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { defineCommands } from './define-commands.js';
import { processIo } from './io.js';

// A reader that stops early (`bookstage … | head`) closes the pipe: the rest of the output goes nowhere, and the
// command ends with its own exit code, as other command-line tools do, not with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
});

const io = processIo();
let exitCode: number = EXIT.ok;
const done = (code: number): void => {
  exitCode = code;
};

const program = new Command('bookstage')
  .description(
    'Stage bookkeeping changes for review, review and apply them, and read the inbox duplicate overview.\n' +
      'Connects to BOOKSTAGE_URL with BOOKSTAGE_TOKEN, or to a --profile of ~/.config/bookstage/config.json.',
  )
  .version('0.1.0')
  .exitOverride()
  .showHelpAfterError('(add --help for usage)')
  .addHelpText(
    'after',
    `\n${EXIT_CODES_HELP}\n\nExample:\n  $ export BOOKSTAGE_URL=http://127.0.0.1:8080 BOOKSTAGE_TOKEN=bst_…\n  $ bookstage ledger reverse le_12 --reason "booked twice"\n`,
  );

await defineCommands(program, process.argv.slice(2), io, done);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Help asked for (--help, `help <command>`) and --version end with 0; a usage error (or a group
    // without its subcommand, which prints its help too) with 2. commander's own exit code tells them apart.
    exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.badInput;
  } else if (err instanceof CliError) {
    io.err(`bookstage: ${err.message}\n`);
    exitCode = err.exitCode;
  } else {
    io.err(`bookstage: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    exitCode = EXIT.other;
  }
}
process.exitCode = exitCode;
