#!/usr/bin/env node
// `bookstage`: the command-line client of the bookstage API (docs/guide/cli.md). Every command is a thin wrapper of one endpoint; exit
// codes are the table in exit-codes.ts.
import { Command, CommanderError } from 'commander';
import { CliError, EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { booksCommands } from './commands/books.js';
import { eventsCommands } from './commands/events.js';
import { inboxCommands } from './commands/inbox.js';
import { jobsCommands } from './commands/jobs.js';
import { journalEntryCommands } from './commands/journal-entry.js';
import { ledgerCommands } from './commands/ledger.js';
import { mcpCommand } from './mcp/command.js';
import { linksCommands } from './commands/links.js';
import { periodsCommands } from './commands/periods.js';
import { matchCommands } from './commands/match.js';
import { profileCommands } from './commands/profile.js';
import { policyCommands } from './commands/policy.js';
import { reconcileCommands } from './commands/reconcile.js';
import { stagedCommands } from './commands/staged.js';
import { statementsCommands } from './commands/statements.js';
import { processIo } from './io.js';

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

reconcileCommands(program, io, done);
linksCommands(program, io, done);
matchCommands(program, io, done);
ledgerCommands(program, io, done);
inboxCommands(program, io, done);
stagedCommands(program, io, done);
policyCommands(program, io, done);
booksCommands(program, io, done);
journalEntryCommands(program, io, done);
jobsCommands(program, io, done);
eventsCommands(program, io, done);
profileCommands(program, io, done);
statementsCommands(program, io, done);
periodsCommands(program, io, done);
mcpCommand(program, io, done);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // --help and --version end with 0; a usage error (or a group without its subcommand) with 2.
    exitCode = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? EXIT.ok : EXIT.badInput;
  } else if (err instanceof CliError) {
    io.err(`bookstage: ${err.message}\n`);
    exitCode = err.exitCode;
  } else {
    io.err(`bookstage: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    exitCode = EXIT.other;
  }
}
process.exitCode = exitCode;
