// `npm start`: everything a newcomer needs to try the service. Starts (or
// reuses) the local servers with their data kept in `.bookstage/data`, loads
// the demo organisation the first time only, reuses the demo token kept
// beside the data (or mints one), starts one API and one worker process,
// prints one working example per operation, found in the stored books, and
// stops what it started on Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Db } from 'mongodb';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry } from '../shared/domain/books.js';
import { findDuplicateGroups } from '../shared/domain/duplicate-groups.js';
import { DEMO_BOOKS, generateBooks } from '../shared/demo/books-generator.js';
import {
  findDemoExamples,
  heldByPending,
  statementImportExample,
  type DemoBooks,
  type DemoExamples,
  type ImportExample,
} from '../shared/demo/demo-examples.js';
import { TOKEN_SCOPES } from '../shared/domain/token-scopes.js';
import { createToken, findTokenBySecret } from '../shared/storage/api-tokens.js';
import { importBooks } from '../shared/books/import.js';
import { findOrg } from '../shared/storage/books-read.js';
import { collections } from '../shared/storage/collections.js';
import { decodeStoredOperations } from '../shared/storage/staged-operations.js';
import { fromStored } from '../shared/storage/documents.js';
import { connectMongo } from '../shared/storage/mongo.js';
import { chooseStoreAdapter, closeStoreAdapter } from '../shared/storage/store-adapter.js';
import { freePort, waitForPort } from './services/ports.js';
import { devDataDir, projectRoot, startServices } from './services/lifecycle.js';
import { migrateStore } from './services/migrate.js';
import { WORKER_NODE_FLAGS } from '../worker/node-flags.js';

const ORG = DEMO_BOOKS.org_id;
/** The sample statement the printout imports (a dry run), and the account it names (its IBAN). */
const IMPORT_SAMPLE = 'examples/statements/camt053-001-02.xml';
const IMPORT_ACCOUNT = 'ba_org_demo_1';
const ACTOR = 'demo:you';
/** A second person: the org requires a distinct approver, so what demo:you stages is approved with this actor's token. */
const REVIEWER = 'demo:reviewer';
/**
 * Where the demo keeps its tokens and logs: beside the local data by default;
 * BOOKSTAGE_DEMO_DIR moves both (the printout test runs the demo on servers of
 * its own without touching a developer's kept token).
 */
const demoDir = process.env.BOOKSTAGE_DEMO_DIR ?? null;
/** The tokens' secrets, kept with the data so that `services -- reset` forgets them with the books they open. */
const tokenFile = (actor: string): string =>
  join(demoDir ?? devDataDir, actor === ACTOR ? 'demo-token' : 'demo-reviewer-token');

async function main(): Promise<void> {
  const urls = await startServices('dev', { dataDir: devDataDir });
  await migrateStore(urls);
  const mongo = await connectMongo(urls.mongoUrl);
  chooseStoreAdapter(mongo.db, { postgresUrl: urls.postgresUrl });
  let loaded: string;
  if (await findOrg(mongo.db, ORG)) {
    loaded = 'kept from an earlier run';
  } else {
    const imported = await importBooks(mongo.db, generateBooks(DEMO_BOOKS));
    if (!imported.ok) throw new Error(`demo books refused: ${JSON.stringify(imported.errors.slice(0, 5))}`);
    loaded = `just loaded: ${imported.counts.ledger_entries?.inserted ?? 0} entries, ${imported.counts.bank_transactions?.inserted ?? 0} bank transactions, ${imported.counts.inbox_documents?.inserted ?? 0} inbox documents`;
  }
  const token = await demoToken(mongo.db, ACTOR);
  const reviewerToken = await demoToken(mongo.db, REVIEWER);
  const { examples, duplicateGroups, statementImport } = await examplesFromStore(mongo.db);
  await closeStoreAdapter(mongo.db);
  await mongo.client.close();

  const port = process.env.PORT ? Number(process.env.PORT) : await portOr8080();
  const logDir = demoDir ? join(demoDir, 'logs') : join(projectRoot, '.bookstage', 'logs');
  mkdirSync(logDir, { recursive: true });
  // Local webhooks (http, localhost) allowed: this is a development stack (docs/reference/webhooks.md "Safety").
  const env = {
    WEBHOOK_ALLOW_INSECURE: 'true',
    ...process.env,
    MONGO_URL: urls.mongoUrl,
    REDIS_URL: urls.redisUrl,
    PORT: String(port),
    ...(urls.postgresUrl ? { FERRETDB_POSTGRES_URL: urls.postgresUrl } : {}),
  };
  // Each service in a process group of its own (`detached`): a terminal's
  // Ctrl-C signals the whole foreground group, and a second signal would cut
  // a service's graceful stop short (shared/shutdown.ts). This process sends
  // each exactly one SIGTERM and waits for them to finish.
  const service = (name: string, entry: string, flags: readonly string[] = []): ChildProcess =>
    spawn(process.execPath, [...flags, join(projectRoot, 'dist', ...entry.split('/'))], {
      env,
      detached: true,
      stdio: ['ignore', openSync(join(logDir, `${name}.log`), 'a'), 'inherit'],
    });
  const children: ChildProcess[] = [
    service('api', 'api/server.js'),
    service('worker', 'worker/main.js', WORKER_NODE_FLAGS),
  ];
  let stopping = false;
  const running = (): ChildProcess[] => children.filter((c) => c.exitCode === null && c.signalCode === null);
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nstopping the API and the worker (each finishes what it is doing)…\n');
    for (const child of running()) child.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  for (const child of children) {
    child.once('exit', (code, signal) => {
      if (!stopping) {
        process.stderr.write(`a service process exited (${signal ?? `code ${code}`}); see ${logDir}\n`);
        process.exitCode = 1;
        stop();
      } else if (code !== 0) {
        process.stderr.write(`a service process ended its shutdown with ${signal ?? `code ${code}`}; see ${logDir}\n`);
        process.exitCode = 1;
      }
      if (running().length === 0) {
        if (process.exitCode !== 1)
          process.stdout.write(
            'stopped. Redis and FerretDB keep running: `npm run services -- stop` stops them (the data stays).\n',
          );
        process.exit();
      }
    });
  }
  await waitForPort(port, 30_000, 'the API');

  const base = `http://127.0.0.1:${port}`;
  const kept = process.env.MONGO_URL && process.env.REDIS_URL ? 'the servers of MONGO_URL/REDIS_URL' : devDataDir;
  const mongoEnv = urls.postgresUrl ? ` FERRETDB_POSTGRES_URL=${urls.postgresUrl}` : '';
  process.stdout.write(`
bookstage is running at ${base}  (logs: ${logDir})
  data: ${kept}  (kept between runs; \`npm run services -- reset\` wipes it)
  organisation: ${ORG} (demo books ${loaded})

In another terminal, paste these first (the CLI, curl and \`npm run admin\` read them):
  export BOOKSTAGE_URL=${base}
  export BOOKSTAGE_TOKEN=${token}
  export BOOKSTAGE_REVIEWER_TOKEN=${reviewerToken}
  export MONGO_URL=${urls.mongoUrl} REDIS_URL=${urls.redisUrl}${mongoEnv}
  (BOOKSTAGE_TOKEN is ${ACTOR}, who stages; BOOKSTAGE_REVIEWER_TOKEN is ${REVIEWER}, who approves: an operation
  needs a second person. Both have every scope and are kept in ${dirname(tokenFile(ACTOR))}.)

Then run these in order; the line above each says what it answers:

${examplesText(examples, duplicateGroups, statementImport)}
Review what you staged, as the second person, then apply it:
  npm run -s bookstage -- staged show STAGED_OPERATION_ID
  BOOKSTAGE_TOKEN=$BOOKSTAGE_REVIEWER_TOKEN npm run -s bookstage -- staged approve STAGED_OPERATION_ID
  npm run -s bookstage -- staged apply STAGED_OPERATION_ID
  or in the browser: ${base}/review (paste a token)
More tokens: npm run admin -- tokens create --org ${ORG} --actor NAME --scopes staged:read,staged:approve

Ctrl-C stops the API and the worker; \`npm run services -- stop\` stops Redis and FerretDB (the data stays).
`);
}

/** The kept token when the store still knows it (a reset or another server forgets it), else a new one, kept for next time. */
async function demoToken(db: Db, actor: string): Promise<string> {
  const file = tokenFile(actor);
  try {
    const secret = readFileSync(file, 'utf8').trim();
    const identity = await findTokenBySecret(db, secret);
    if (identity?.org_id === ORG && identity.actor === actor) return secret;
  } catch {
    // no kept token yet
  }
  const { token } = await createToken(db, { org_id: ORG, actor, scopes: [...TOKEN_SCOPES] });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/** Examples from the books as stored now, so that what earlier runs applied is taken into account. */
async function examplesFromStore(
  db: Db,
): Promise<{ examples: DemoExamples; duplicateGroups: number; statementImport: ImportExample | null }> {
  const c = collections(db);
  const org = await findOrg(db, ORG);
  if (!org) throw new Error(`organisation ${ORG} is missing`);
  const [accounts, transactions, entries, links, documents, pending] = await Promise.all([
    c.bankAccounts.find({ org_id: ORG }).toArray(),
    c.bankTransactions.find({ org_id: ORG }).toArray(),
    c.ledgerEntries.find({ org_id: ORG }).toArray(),
    c.bankLinks.find({ org_id: ORG }).toArray(),
    c.inboxDocuments.find({ org_id: ORG }).toArray(),
    c.stagedOperations.find({ org_id: ORG, status: { $in: ['staged', 'approved', 'applying'] } }).toArray(),
  ]);
  const books: DemoBooks = {
    org,
    accounts: accounts.map((d) => fromStored<BankAccount>(d)),
    transactions: transactions.map((d) => fromStored<BankTransaction>(d)),
    entries: entries.map((d) => fromStored<LedgerEntry>(d)),
    links: links.map((d) => fromStored<BankLink>(d)),
  };
  const examples = findDemoExamples(
    books,
    new Date().toISOString().slice(0, 10),
    heldByPending(await decodeStoredOperations(db, pending)),
  );
  const statementImport = statementImportExample(
    books,
    IMPORT_ACCOUNT,
    readFileSync(join(projectRoot, ...IMPORT_SAMPLE.split('/'))),
  );
  return {
    examples,
    duplicateGroups: findDuplicateGroups(documents.map((d) => fromStored(d))).length,
    statementImport,
  };
}

/**
 * The printed examples, in the order they are meant to be run: each is
 * annotated on the line above with what it answers (`# expect: <HTTP status>
 * <outcome or error code>`), and test/admin/demo-printout.test.ts runs them in
 * this order, on a first start and again after a restart. Refusals come before
 * the staging that would hold their subject (a pending reconciliation of an
 * account answers 409 to any other statement of it).
 */
function examplesText(ex: DemoExamples, duplicateGroups: number, statementImport: ImportExample | null): string {
  const auth = `-H "Authorization: Bearer $BOOKSTAGE_TOKEN"`;
  const curlPost = (path: string, body: unknown): string =>
    `  curl -s -X POST "$BOOKSTAGE_URL${path}" ${auth} -H 'Content-Type: application/json' \\\n       -d '${JSON.stringify(body)}'`;
  const cli = (args: string): string => `  npm run -s bookstage -- ${args}`;
  const out: string[] = [];
  const example = (title: string | string[], expect: string, command: string): void => {
    out.push(...[title].flat().map((t) => `  # ${t}`), `  # expect: ${expect}`, command, '');
  };
  const reconcileArgs = (r: NonNullable<DemoExamples['reconcile']['ok']>): string =>
    `reconcile stage --bank-account ${r.bank_account_id} --end-date ${r.statement.end_date} --closing-balance ${r.statement.closing_balance_minor} --currency ${r.statement.currency} --transactions ${r.transaction_ids.join(',')}`;

  out.push('Over HTTP (curl):', '');
  example(
    `the inbox's ${duplicateGroups} duplicate groups, first page`,
    '200 ok',
    `  curl -s "$BOOKSTAGE_URL/api/v1/cli/bookkeeping/inbox/duplicates?limit=5" ${auth}`,
  );
  const blocked = ex.repair.blocked;
  if (blocked) {
    example(
      `a FIFO link repair that is blocked (${blocked.blockers.map((b) => b.code).join(', ')}); nothing is staged`,
      '200 blocked',
      curlPost('/api/v1/cli/bank-matches/ledger-link-repair/stage', {
        bank_account_id: blocked.bank_account_id,
        counterparty_id: blocked.counterparty_id,
      }),
    );
  }
  const bad = ex.reconcile.failing.out_of_balance;
  if (bad) {
    example(
      `a statement of ${bad.bank_account_id} whose closing balance is 1.00 off`,
      '422 out_of_balance',
      curlPost('/api/v1/cli/bank-matches/reconcile/stage', bad),
    );
  }

  out.push('With the CLI:', '');
  const noop = ex.repair.noop;
  if (noop) {
    example(
      'a repair with nothing to do',
      '200 noop',
      cli(`links repair --bank-account ${noop.bank_account_id} --counterparty ${noop.counterparty_id}`),
    );
  }
  const moves = ex.repair.moves;
  if (moves) {
    example(
      `repair ${moves.counterparty_id}'s links by FIFO: ${moves.moves} links move to older invoices`,
      '201 staged',
      cli(`links repair --bank-account ${moves.bank_account_id} --counterparty ${moves.counterparty_id}`),
    );
  }
  const ok = ex.reconcile.ok;
  if (ok) {
    example(
      `reconcile a statement of ${ok.bank_account_id} clearing ${ok.transaction_ids.length} transactions through ${ok.statement.end_date}`,
      '201 staged',
      cli(reconcileArgs(ok)),
    );
  }
  const { reversible, already_reversed: reversed } = ex.reversal;
  if (reversed)
    example(
      `reverse ${reversed}, which is already reversed`,
      '409 already_reversed',
      cli(`ledger reverse ${reversed}`),
    );
  if (reversible) {
    example(
      `stage a reversal of ledger entry ${reversible} (its bank links are unlinked)`,
      '201 staged',
      cli(`ledger reverse ${reversible} --reason "booked twice"`),
    );
  }
  example('the staged operations waiting for review', '200 ok', cli('staged list'));
  // A dry run: it stores nothing, so its answer is the same on every start; the outcome is decided from the account as stored now.
  if (statementImport) {
    const { new_transactions: fresh, skipped } = statementImport;
    example(
      [
        `preview importing a bank statement into ${statementImport.bank_account_id}: ${fresh} new transactions would be staged for review, ${skipped} already there skipped`,
        '(--dry-run stores nothing; without it the import is staged. More samples in examples/statements/: .ofx, .sta, .csv; docs/guide/statement-import.md)',
      ],
      `200 ${statementImport.outcome}`,
      cli(`statements import ${IMPORT_SAMPLE} --account ${statementImport.bank_account_id} --dry-run`),
    );
  }
  return out.join('\n');
}

async function portOr8080(): Promise<number> {
  const { createServer } = await import('node:net');
  const free = await new Promise<boolean>((resolve) => {
    const s = createServer()
      .once('error', () => resolve(false))
      .listen(8080, () => s.close(() => resolve(true)));
  });
  return free ? 8080 : freePort();
}

main().catch((err: unknown) => {
  process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
