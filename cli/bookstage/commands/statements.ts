// bookstage statements import FILE --account ba_… → POST /api/v1/cli/bank-accounts/{id}/statements/import/stage
// (docs/guide/statement-import.md): the file is sent as it is; the format, an
// encoding and a CSV's column mapping go in the query.
import { pathOf } from '../../../shared/contract/route-paths.js';
import { CSV_MAPPING_PARAMS } from '../../../shared/kinds/statement-import/csv-params.js';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { runRequest, runStaging, type CommonOptions, type StagingOptions } from '../call.js';
import { CliError, EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { example, withCommon, withJobWait } from './options.js';
import { topLevel } from './top-level.js';

/** CSV mapping flags → query parameters (`--date-column` → `date_column`): the route's own list. */
const CSV_FLAGS = CSV_MAPPING_PARAMS;
const camel = (snake: string): string => snake.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());
const flag = (snake: string): string => `--${snake.replace(/_/g, '-')}`;

interface Options extends Omit<StagingOptions, 'body'> {
  account: string;
  format?: string;
  encoding?: string;
  [csv: string]: unknown;
}

function readFile(file: string): Uint8Array {
  try {
    return file === '-' ? readFileSync(0) : readFileSync(file);
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`, EXIT.badInput);
  }
}

export function statementsCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(topLevel(program, 'statements'), 'bookstage statements import camt053.xml --account ba_main');
  const imp = group
    .command('import')
    .argument('<file>', 'the statement file (CAMT.053, OFX, MT940 or CSV), or - for stdin')
    .description('stage the import of a bank statement file: new transactions for review, duplicates skipped');
  withCommon(imp)
    .requiredOption('--account <bank_account_id>', 'the bank account the statement is for')
    .option('--format <format>', 'auto (default: sniffed), camt053, ofx, mt940 or csv')
    .option('--encoding <name>', "the file's encoding, overriding what it declares (utf-8, latin1, cp1252, …)")
    .option('--dry-run', 'answer the plan a staging would have; nothing is stored (?dry_run=true)');
  withJobWait(imp);
  for (const name of CSV_FLAGS) imp.option(`${flag(name)} <value>`, `CSV mapping: ${name}`);
  imp.action(async (file: string, opts: Options) => {
    const query = new URLSearchParams();
    if (opts.format) query.set('format', opts.format);
    if (opts.encoding) query.set('encoding', opts.encoding);
    for (const name of CSV_FLAGS) {
      const value = opts[camel(name)];
      if (typeof value === 'string') query.set(name, value);
    }
    const qs = query.toString();
    const path = `${pathOf('statement_import.stage', { bank_account_id: opts.account })}${qs ? `?${qs}` : ''}`;
    done(await runStaging({ method: 'POST', path, rawBody: readFile(file) }, opts, io));
  });
  example(
    imp,
    'bookstage statements import examples/statements/camt053-001-02.xml --account ba_org_demo_1',
    'bookstage statements import export.csv --account ba_main --date-column Buchungstag --amount-column Betrag --date-format DD.MM.YYYY --decimal-separator , --delimiter ";"',
  );
  mappingCommands(group, io, done);
}

/** The mapping flags as the PUT body: `header` a boolean and `skip_rows` a number when they read as one (else sent as given, for the API to refuse). */
function mappingBody(opts: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of CSV_FLAGS) {
    const value = opts[camel(name)];
    if (typeof value !== 'string') continue;
    if (name === 'header' && (value === 'true' || value === 'false')) body[name] = value === 'true';
    else if (name === 'skip_rows' && /^\d{1,9}$/.test(value)) body[name] = Number(value);
    else body[name] = value;
  }
  return body;
}

// bookstage statements mapping set|show --account ba_… → PUT|GET /api/v1/cli/bank-accounts/{id}/csv-mapping
// (docs/guide/statement-import.md "Saved CSV mapping").
function mappingCommands(group: Command, io: Io, done: (code: number) => void): void {
  const mapping = example(
    group
      .command('mapping')
      .description('the CSV column mapping saved on a bank account, used by CSV imports given no mapping flags'),
    'bookstage statements mapping show --account ba_main',
  );
  const set = withCommon(
    mapping.command('set').description("save (replace) the account's CSV mapping: the same flags as statements import"),
  ).requiredOption('--account <bank_account_id>', 'the bank account');
  for (const name of CSV_FLAGS) set.option(`${flag(name)} <value>`, `CSV mapping: ${name}`);
  set.action(async (opts: CommonOptions & { account: string } & Record<string, unknown>) => {
    done(
      await runRequest(
        {
          method: 'PUT',
          path: pathOf('bank_accounts.csv_mapping.put', { bank_account_id: opts.account }),
          body: mappingBody(opts),
        },
        opts,
        io,
      ),
    );
  });
  example(
    set,
    'bookstage statements mapping set --account ba_main --date-column Buchungstag --amount-column Betrag --date-format DD.MM.YYYY --decimal-separator , --delimiter ";" --skip-rows 3',
  );
  const show = withCommon(
    mapping.command('show').description("the account's saved CSV mapping, if any"),
  ).requiredOption('--account <bank_account_id>', 'the bank account');
  show.action(async (opts: CommonOptions & { account: string }) => {
    done(
      await runRequest(
        { method: 'GET', path: pathOf('bank_accounts.csv_mapping.show', { bank_account_id: opts.account }) },
        opts,
        io,
      ),
    );
  });
  example(show, 'bookstage statements mapping show --account ba_main');
}
