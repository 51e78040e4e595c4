// The top-level commands, in the root help's order, and the line it gives
// each: the one place they are named and described, so that the root help
// lists them without loading the modules that define them
// (cli/bookstage/define-commands.ts, docs/design/performance.md "CLI start
// and book pages").
import type { Command } from 'commander';

export const TOP_LEVEL = {
  reconcile: 'bank reconciliations',
  links: 'ledger ↔ bank links',
  match: 'bank matches: link bank transactions to ledger entries, and what to match',
  ledger: 'ledger entries',
  'ledger-accounts': 'the chart of accounts',
  inbox: 'the receipts inbox',
  staged: 'review and apply staged operations',
  policy: "the organisation's approval policy",
  accounts: 'bank accounts: book balance, unreconciled count and sum (read-only)',
  transactions: 'bank transactions with their links and remainder (read-only)',
  entries: 'ledger entries with their open amount and links (read-only)',
  counterparties: 'counterparties of a bank account: open receivable/payable and unlinked bank amounts (read-only)',
  documents: 'inbox documents, newest first (read-only)',
  books: 'the whole books as a file',
  jobs: 'jobs of staging calls that outlived their wait',
  events: 'the event feed: every transition of a staged operation',
  webhooks: 'webhook endpoints: signed POSTs of events to your URL',
  profile: 'named API URLs and tokens in ~/.config/bookstage/config.json (mode 0600)',
  statements: 'bank statement files',
  periods: 'closed periods: close one, list them, check one',
  mcp: 'serve the staging and read calls as Model Context Protocol tools over stdio, for AI agents (approve, reject and apply only when allowed)',
} as const;

export type TopLevelName = keyof typeof TOP_LEVEL;

export const TOP_LEVEL_NAMES = Object.keys(TOP_LEVEL) as TopLevelName[];

/** The top-level command `name` on `program`, described; what is under it is its module's. */
export function topLevel(program: Command, name: TopLevelName): Command {
  return program.command(name).description(TOP_LEVEL[name]);
}
