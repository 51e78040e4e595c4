// Which module defines each top-level command. `bookstage` loads only the
// modules of the command its line names; for the root help, `--version` or a
// name it does not know it loads none and lists each top-level command with
// its description alone (commands/top-level.ts), so that a command starts
// with what it runs (docs/design/performance.md "CLI start and book pages").
import type { Command } from 'commander';
import type { Io } from './io.js';
import { TOP_LEVEL, TOP_LEVEL_NAMES, topLevel, type TopLevelName } from './commands/top-level.js';

/** A module's definer: adds its top-level commands, and everything under them, to the program. */
export type Define = (program: Command, io: Io, done: (code: number) => void) => void;
type Load = () => Promise<Define>;

const books: Load = async () => (await import('./commands/books.js')).booksCommands;
const ledger: Load = async () => (await import('./commands/ledger.js')).ledgerCommands;
const events: Load = async () => (await import('./commands/events.js')).eventsCommands;

/** Each top-level command's definers, in order (`entries`: the book reads' group, then its `stage`). */
export const DEFINERS: { readonly [N in TopLevelName]: readonly Load[] } = {
  reconcile: [async () => (await import('./commands/reconcile.js')).reconcileCommands],
  links: [async () => (await import('./commands/links.js')).linksCommands],
  match: [async () => (await import('./commands/match.js')).matchCommands],
  ledger: [ledger],
  'ledger-accounts': [ledger],
  inbox: [async () => (await import('./commands/inbox.js')).inboxCommands],
  staged: [async () => (await import('./commands/staged.js')).stagedCommands],
  policy: [async () => (await import('./commands/policy.js')).policyCommands],
  accounts: [books],
  transactions: [books],
  entries: [books, async () => (await import('./commands/journal-entry.js')).journalEntryCommands],
  counterparties: [books],
  documents: [books],
  books: [books],
  jobs: [async () => (await import('./commands/jobs.js')).jobsCommands],
  events: [events],
  webhooks: [events],
  profile: [async () => (await import('./commands/profile.js')).profileCommands],
  statements: [async () => (await import('./commands/statements.js')).statementsCommands],
  periods: [async () => (await import('./commands/periods.js')).periodsCommands],
  mcp: [async () => (await import('./mcp/command.js')).mcpCommand],
};

const isTopLevel = (word: string | undefined): word is TopLevelName =>
  word !== undefined && Object.hasOwn(TOP_LEVEL, word);

/**
 * The top-level command a command line names (the arguments after `bookstage`):
 * its first word, or the word after `help`; null when it names none this CLI has.
 * The program's own options (`--help`, `--version`) take no value, so the first
 * word is never an option's.
 */
export function namedTopLevel(args: readonly string[]): TopLevelName | null {
  const words = args.filter((arg) => !arg.startsWith('-'));
  const word = words[0] === 'help' ? words[1] : words[0];
  return isTopLevel(word) ? word : null;
}

/** Defines the commands `args` needs: the named one's modules, or every top-level command by its description alone. */
export async function defineCommands(
  program: Command,
  args: readonly string[],
  io: Io,
  done: (code: number) => void,
): Promise<void> {
  const named = namedTopLevel(args);
  if (named === null) {
    for (const name of TOP_LEVEL_NAMES) topLevel(program, name);
    return;
  }
  for (const load of DEFINERS[named]) (await load())(program, io, done);
}
