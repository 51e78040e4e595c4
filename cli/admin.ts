// `npm run admin -- …`: the operator's commands (docs/guide/importing-books.md): load books,
// generate a demo organisation, create API tokens. Exit codes: 0 ok, 1
// failure, 2 bad input (a refused file, a bad option).
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { generateBooks } from '../shared/demo/books-generator.js';
import { TOKEN_SCOPES, type TokenScope } from '../shared/domain/token-scopes.js';
import { createToken, revokeToken } from '../shared/storage/api-tokens.js';
import { importBooks, type ImportResult } from '../shared/books/import.js';
import { importLedgerFile, type LedgerImportResult } from '../shared/books/ledger-import.js';
import { DEFAULT_BASE_CURRENCY, DEFAULT_SETTLEMENT_ACCOUNT } from '../shared/domain/ledger-import/to-books.js';
import { findOrg } from '../shared/storage/books-read.js';
import { ensureIndexes } from '../shared/storage/indexes.js';
import { chooseStoreAdapter, closeStoreAdapter } from '../shared/storage/store-adapter.js';
import { connectMongo, type Mongo } from '../shared/storage/mongo.js';

class UsageError extends Error {}

async function withMongo<T>(fn: (mongo: Mongo) => Promise<T>): Promise<T> {
  const url = process.env.MONGO_URL;
  if (!url || !/^mongodb(\+srv)?:\/\/.+/.test(url))
    throw new UsageError(
      'MONGO_URL is not set: expected a mongodb:// URL with the database name in its path (see `npm run services -- start`)',
    );
  const mongo = await connectMongo(url);
  try {
    const postgresUrl = process.env.FERRETDB_POSTGRES_URL || undefined;
    await ensureIndexes(mongo.db, { postgresUrl });
    chooseStoreAdapter(mongo.db, { postgresUrl });
    return await fn(mongo);
  } finally {
    await closeStoreAdapter(mongo.db);
    await mongo.client.close();
  }
}

function report(result: ImportResult): void {
  if (!result.ok) {
    process.stderr.write(`books import refused; nothing was written. ${result.errors.length} problem(s):\n`);
    for (const e of result.errors) process.stderr.write(`  ${e.pointer || '/'}: ${e.message}\n`);
    process.exitCode = 2;
    return;
  }
  process.stdout.write(`${JSON.stringify({ org_id: result.org_id, counts: result.counts })}\n`);
}

/** A journal's refusals (docs/guide/ledger-exchange.md "Refusals"): one a line, `line N: code: message`. */
function reportLedger(file: string, result: LedgerImportResult): void {
  if (!result.ok) {
    process.stderr.write(`books import refused; nothing was written. ${result.refusals.length} problem(s):\n`);
    for (const r of result.refusals)
      process.stderr.write(`  ${file}:${r.line}: ${r.code}: ${r.message.replace(/\n/g, '\n    ')}\n`);
    process.exitCode = 2;
    return;
  }
  process.stdout.write(`${JSON.stringify({ org_id: result.org_id, counts: result.counts })}\n`);
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function bankAccountOption(value: string, previous: Map<string, string> = new Map()): Map<string, string> {
  const at = value.lastIndexOf('=');
  const [name, id] = [value.slice(0, at), value.slice(at + 1)];
  if (at <= 0 || !ID.test(id))
    throw new InvalidArgumentError('--bank-account takes ACCOUNT=ba_id, e.g. Assets:Bank:Checking=ba_main');
  return new Map([...previous, [name, id]]);
}

const integer =
  (name: string) =>
  (value: string): number => {
    if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be an integer`);
    return Number(value);
  };

function parseScopes(value: string): TokenScope[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(TOKEN_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0 || scopes.length === 0)
    throw new InvalidArgumentError(
      `unknown scope(s) ${unknown.join(', ') || '(none)'}; known: ${TOKEN_SCOPES.join(', ')}`,
    );
  return [...new Set(scopes)] as TokenScope[];
}

const program = new Command('admin').description('bookstage operator commands').exitOverride();

const books = program.command('books').description('load books into MongoDB');
books
  .command('import')
  .argument('<file>', 'books JSON file (docs/guide/importing-books.md), or a journal with --format')
  .description('validate a books file whole, then upsert it')
  .addOption(
    new Option('--format <format>', 'read an hledger journal or a beancount file (docs/guide/ledger-exchange.md)')
      .choices(['json', 'hledger', 'beancount'])
      .default('json'),
  )
  .option('--org <id>', "with --format hledger|beancount: the new organisation's id")
  .option(
    '--base-currency <code>',
    `with --format: the organisation's base currency (default: the first transaction's, else ${DEFAULT_BASE_CURRENCY})`,
  )
  .option(
    '--settlement-accounts <codes>',
    `with --format: comma-separated settlement account codes (default: the accounts the file's links settle on, else ${DEFAULT_SETTLEMENT_ACCOUNT})`,
  )
  .option(
    '--bank-account <account=id>',
    'with --format: this account is the bank account id (repeatable)',
    bankAccountOption,
  )
  .action(
    async (
      file: string,
      opts: {
        format: string;
        org?: string;
        baseCurrency?: string;
        settlementAccounts?: string;
        bankAccount?: Map<string, string>;
      },
    ) => {
      if (opts.format === 'hledger' || opts.format === 'beancount') {
        const format = opts.format;
        if (!opts.org || !ID.test(opts.org))
          throw new UsageError('--org ID is required with --format: 1-64 characters of letters, digits and _.-');
        if (opts.baseCurrency !== undefined && !/^[A-Z]{3}$/.test(opts.baseCurrency))
          throw new UsageError('--base-currency must be a three-letter currency code');
        const settlementAccounts = opts.settlementAccounts
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const orgId = opts.org;
        reportLedger(
          file,
          await withMongo(async (m) => {
            if (await findOrg(m.db, orgId))
              throw new UsageError(
                `organisation ${orgId} exists already: a journal is imported into a new organisation`,
              );
            return importLedgerFile(m.db, file, format, {
              orgId,
              baseCurrency: opts.baseCurrency,
              settlementAccounts,
              bankAccounts: opts.bankAccount,
            });
          }),
        );
        return;
      }
      if (opts.org || opts.baseCurrency || opts.settlementAccounts || opts.bankAccount)
        throw new UsageError(
          '--org, --base-currency, --settlement-accounts and --bank-account go with --format hledger|beancount',
        );
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readFile(file, 'utf8'));
      } catch (err) {
        throw new UsageError(`cannot read ${file} as JSON: ${(err as Error).message}`);
      }
      report(await withMongo((m) => importBooks(m.db, parsed)));
    },
  );
books
  .command('demo')
  .description('generate and import a deterministic demo organisation')
  .requiredOption('--org <id>', 'organisation id')
  .option('--size <n>', 'about how many bank transactions', integer('--size'), 200)
  .option('--seed <s>', 'generator seed', integer('--seed'), 1)
  .action(async (opts: { org: string; size: number; seed: number }) => {
    let file;
    try {
      file = generateBooks({ org_id: opts.org, size: opts.size, seed: opts.seed });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    report(await withMongo((m) => importBooks(m.db, file)));
  });

const tokens = program.command('tokens').description('API tokens');
tokens
  .command('create')
  .description('create a token; the secret is printed once')
  .requiredOption('--org <id>', 'organisation id')
  .requiredOption('--actor <name>', 'who acts with it, e.g. alice or agent:recon-bot')
  .requiredOption(
    '--scopes <list>',
    `comma-separated: ${TOKEN_SCOPES.join(',')}; exactly these are granted (add books:read to read the books)`,
    parseScopes,
  )
  // Least privilege: the scopes given are the scopes granted. The flag that once left out an implied books:read is
  // still taken, so scripts that pass it keep working; it changes nothing (docs/guide/importing-books.md).
  .addOption(new Option('--no-books-read', 'no effect: books:read is granted only when --scopes names it').hideHelp())
  .option('--agent', "an agent's token: the approval policy counts its actor as an agent, whatever its name")
  .option('--json', 'print {"token": …} as JSON on stdout')
  .action(async (opts: { org: string; actor: string; scopes: TokenScope[]; agent?: boolean; json?: boolean }) => {
    if (!/^[A-Za-z0-9._:@-]{1,128}$/.test(opts.actor))
      throw new UsageError('--actor must be 1-128 characters of letters, digits and ._:@-');
    const created = await withMongo(async (m) => {
      if (!(await findOrg(m.db, opts.org)))
        throw new UsageError(`organisation ${opts.org} does not exist; import its books first`);
      return createToken(m.db, {
        org_id: opts.org,
        actor: opts.actor,
        scopes: opts.scopes,
        agent: opts.agent === true,
      });
    });
    if (opts.json) process.stdout.write(`${JSON.stringify(created)}\n`);
    else
      process.stdout.write(
        `token ${created.token_id} for ${created.agent ? 'agent ' : ''}${created.actor} in ${created.org_id} (${created.scopes.join(',')}):\n${created.token}\nKeep it now: it is stored only as a hash and cannot be shown again.\n`,
      );
  });

tokens
  .command('revoke')
  .argument('<token_id>', 'the tok_… id printed by tokens create')
  .description('revoke a token: the API answers 401 to it from the next request on')
  .action(async (tokenId: string) => {
    if (!(await withMongo((m) => revokeToken(m.db, tokenId)))) throw new UsageError(`no token ${tokenId}`);
    process.stdout.write(`revoked ${tokenId}\n`);
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (e.code?.startsWith('commander.')) {
    process.exitCode = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 2;
    return;
  }
  process.stderr.write(`admin: ${e.message ?? String(err)}\n`);
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
