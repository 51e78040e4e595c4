// bookstage accounts|transactions|entries|counterparties|documents → the book
// reads (docs/reference/book-reads.md): list (one page, --all for every page) and show;
// bookstage books export → the whole books as an hledger or beancount file on stdout.
import { pathOf, type RouteOperation } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { query, runDownload, runPaged, runRequest, type CommonOptions, type PagingOptions } from '../call.js';
import type { Io } from '../io.js';
import { example, withCommon, withPaging } from './options.js';
import { topLevel, type TopLevelName } from './top-level.js';

type Filters = Record<string, string | undefined>;

interface Read {
  /** Its top-level command, described in TOP_LEVEL. */
  group: TopLevelName;
  /** The list's operation in the route table (shared/contract/route-paths.ts). */
  list: RouteOperation;
  /** Option flag → query parameter, with its help. */
  filters: Array<[flag: string, param: string, help: string]>;
  paged: boolean;
  /** The show's operation and its path parameter. */
  show?: { operation: RouteOperation; param: string; argument: string; what: string };
  examples: string[];
}

const READS: Read[] = [
  {
    group: 'accounts',
    list: 'bank_accounts.list',
    filters: [],
    paged: false,
    show: {
      operation: 'bank_accounts.show',
      param: 'bank_account_id',
      argument: '<bank_account_id>',
      what: 'one bank account',
    },
    examples: ['bookstage accounts list', 'bookstage accounts show ba_main'],
  },
  {
    group: 'transactions',
    list: 'bank_transactions.list',
    filters: [
      ['--account <id>', 'bank_account_id', 'only this bank account'],
      ['--status <s>', 'status', 'unreconciled or reconciled'],
      ['--from <date>', 'from', 'booked on or after (YYYY-MM-DD)'],
      ['--to <date>', 'to', 'booked on or before (YYYY-MM-DD)'],
      ['--counterparty <id>', 'counterparty_id', 'only this counterparty'],
      ['--link-state <s>', 'link_state', 'unlinked, partial, full or over'],
    ],
    paged: true,
    show: {
      operation: 'bank_transactions.show',
      param: 'bank_transaction_id',
      argument: '<bank_transaction_id>',
      what: 'one bank transaction with its links',
    },
    examples: [
      'bookstage transactions list --account ba_main --status unreconciled',
      'bookstage transactions show bt_1',
    ],
  },
  {
    group: 'entries',
    list: 'ledger_entries.list',
    filters: [
      ['--counterparty <id>', 'counterparty_id', 'only this counterparty'],
      ['--status <s>', 'status', 'posted or reversed'],
      ['--open <bool>', 'open', 'true: posted, not a reversal, open amount ≠ Σ links; false: the others'],
      ['--from <date>', 'from', 'entry date on or after'],
      ['--to <date>', 'to', 'entry date on or before'],
      ['--reference <ref>', 'reference', 'exactly this reference'],
    ],
    paged: true,
    show: {
      operation: 'ledger_entries.show',
      param: 'entry_id',
      argument: '<entry_id>',
      what: 'one ledger entry with its links',
    },
    examples: ['bookstage entries list --counterparty cp_acme --open true', 'bookstage entries show le_12'],
  },
  {
    group: 'counterparties',
    list: 'counterparties.list',
    filters: [['--account <id>', 'bank_account_id', 'the bank account (required)']],
    paged: true,
    examples: [
      'bookstage counterparties list --account ba_main',
      'bookstage counterparties list --account ba_main --all',
    ],
  },
  {
    group: 'documents',
    list: 'inbox_documents.list',
    filters: [['--status <s>', 'status', 'open, booked or archived']],
    paged: true,
    show: {
      operation: 'inbox_documents.show',
      param: 'document_id',
      argument: '<document_id>',
      what: 'one inbox document',
    },
    examples: ['bookstage documents list --status open', 'bookstage documents show doc_1'],
  },
];

/** commander's camelCase key of a flag: `--link-state <s>` → linkState. */
const keyOf = (flag: string): string =>
  flag
    .replace(/^--/, '')
    .split(' ')[0]!
    .replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export function booksCommands(program: Command, io: Io, done: (code: number) => void): void {
  for (const read of READS) {
    const group = example(topLevel(program, read.group), ...read.examples);
    const list = group.command('list').description(`list ${read.group}`);
    if (read.paged) withPaging(list);
    else withCommon(list);
    for (const [flag, , help] of read.filters) list.option(flag, help);
    list.action(async (opts: PagingOptions & Filters) => {
      const params = (cursor: string | undefined): Record<string, string | number | undefined> => {
        const out: Record<string, string | number | undefined> = {};
        for (const [flag, param] of read.filters) out[param] = opts[keyOf(flag)];
        return read.paged ? { ...out, limit: opts.limit, cursor } : out;
      };
      done(
        await runPaged(
          (cursor) => `${pathOf(read.list)}${query(params(cursor))}`,
          'items',
          read.paged ? opts : { ...opts, all: false, cursor: undefined },
          io,
        ),
      );
    });
    const one = read.show;
    if (one) {
      const show = group.command('show').argument(one.argument, 'its id').description(one.what);
      withCommon(show).action(async (id: string, opts: CommonOptions) => {
        done(await runRequest({ method: 'GET', path: pathOf(one.operation, { [one.param]: id }) }, opts, io));
      });
    }
  }

  const books = topLevel(program, 'books');
  const exported = books
    .command('export')
    .description('print the books as an hledger journal or a beancount file (read-only; redirect it to a file)');
  withCommon(exported)
    .requiredOption('--format <format>', 'format: hledger or beancount')
    .option('--through <date>', 'through: records dated on or before this day (default every record)')
    .action(async (opts: CommonOptions & { format: string; through?: string }) => {
      const path = `${pathOf('books.export')}${query({ format: opts.format, through: opts.through })}`;
      done(await runDownload({ method: 'GET', path }, opts, io));
    });
  example(
    exported,
    'bookstage books export --format beancount > books.beancount',
    'hledger -f <(bookstage books export --format hledger) bal',
  );
}
