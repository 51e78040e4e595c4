// bookstage match stage|suggest|decline → bank matches and their suggestions
// (docs/reference/http-api.md §8.1, §8.2).
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { listOption, readBodyOption, setField } from '../body.js';
import { query, runRequest, runStaging, type CommonOptions, type StagingOptions } from '../call.js';
import { CliError, EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { example, withCommon, withStaging } from './options.js';
import { topLevel } from './top-level.js';

interface StageOptions extends StagingOptions {
  bankAccount?: string;
  pair?: string[];
  note?: string;
}

/** `bt_1:le_7:12000` → one pair; anything else is a usage error before anything is sent. */
function parsePair(value: string, previous: unknown[] = []): unknown[] {
  const m = /^([^:\s]+):([^:\s]+):(\d+)$/.exec(value);
  if (!m || !Number.isSafeInteger(Number(m[3])))
    throw new CliError(
      `--pair must be TRANSACTION:ENTRY:AMOUNT_MINOR (e.g. bt_1:le_7:12000), got "${value}"`,
      EXIT.badInput,
    );
  return [...previous, { bank_transaction_id: m[1], ledger_entry_id: m[2], amount_minor: Number(m[3]) }];
}

export function matchCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(
    topLevel(program, 'match'),
    'bookstage match suggest bt_1',
    'bookstage match stage --bank-account ba_main --pair bt_1:le_7:12000 --pair bt_1:le_8:3000',
  );

  const stage = group
    .command('stage')
    .description('stage new links of bank transactions to ledger entries, pair by pair (1:1, 1:N, N:1)');
  withStaging(stage)
    .option('--bank-account <id>', 'bank_account_id: the account of every transaction matched')
    .option(
      '--pair <bt:le:amount>',
      'a pair: transaction, entry, the link amount in minor units (repeat it)',
      parsePair,
    )
    .option('--note <text>', 'note: for the reviewer')
    .action(async (opts: StageOptions) => {
      const body = readBodyOption(opts.body);
      setField(body, 'bank_account_id', opts.bankAccount);
      setField(body, 'matches', opts.pair);
      setField(body, 'note', opts.note);
      done(await runStaging({ method: 'POST', path: pathOf('bank_match.stage'), body }, opts, io));
    });
  example(stage, 'bookstage match stage --bank-account ba_main --pair bt_1:le_7:12000 --dry-run');

  const suggest = group
    .command('suggest')
    .argument('<bank_transaction_id>', 'the transaction')
    .description('what could settle a bank transaction, best first, with the signals of each (read-only)');
  withCommon(suggest)
    .option('--limit <n>', 'how many suggestions, 1–20 (default 5)')
    .action(async (id: string, opts: CommonOptions & { limit?: string }) => {
      const path = `${pathOf('match_suggestions.list', { bank_transaction_id: id })}${query({ limit: opts.limit })}`;
      done(await runRequest({ method: 'GET', path }, opts, io));
    });
  example(suggest, 'bookstage match suggest bt_1 --limit 10');

  const decline = group
    .command('decline')
    .argument('<bank_transaction_id>', 'the transaction')
    .description('decline suggested entries (or a document) for a transaction: never suggested for it again');
  withCommon(decline)
    .option('--entries <ids>', 'ledger_entry_ids, comma-separated', listOption)
    .option('--document <id>', 'document_id')
    .action(async (id: string, opts: CommonOptions & { entries?: string[]; document?: string }) => {
      if ((opts.entries === undefined) === (opts.document === undefined))
        throw new CliError('give exactly one of --entries and --document', EXIT.badInput);
      const body = opts.entries ? { ledger_entry_ids: opts.entries } : { document_id: opts.document };
      const path = pathOf('match_suggestions.decline', { bank_transaction_id: id });
      done(await runRequest({ method: 'POST', path, body }, opts, io));
    });
  example(decline, 'bookstage match decline bt_1 --entries le_7,le_8', 'bookstage match decline bt_1 --document doc_3');
}
