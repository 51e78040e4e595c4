// `npm start`: everything a newcomer needs to try the service. Starts (or
// reuses) the local servers with their data kept in `.bookstage/data`, loads
// the demo organisation the first time only, reuses the demo token kept
// beside the data (or mints one), starts one API and one worker process,
// prints one working example per operation, found in the stored books, and
// stops what it started on Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from 'mongodb';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry } from '../shared/domain/books.js';
import { findDuplicateGroups } from '../shared/domain/duplicate-groups.js';
import { generateBooks } from '../shared/demo/books-generator.js';
import { findDemoExamples, type DemoExamples } from '../shared/demo/demo-examples.js';
import { createToken, findTokenBySecret, SCOPES } from '../shared/storage/api-tokens.js';
import { importBooks } from '../shared/books/import.js';
import { findOrg } from '../shared/storage/books-read.js';
import { collections } from '../shared/storage/collections.js';
import { fromStored } from '../shared/storage/documents.js';
import { connectMongo } from '../shared/storage/mongo.js';
import { freePort, waitForPort } from './services/ports.js';
import { devDataDir, projectRoot, startServices } from './services/lifecycle.js';
import { migrateStore } from './services/migrate.js';

const ORG = 'org_demo';
const ACTOR = 'demo:you';
/** The demo token's secret, kept with the data so that `services -- reset` forgets it with the books it opens. */
const tokenFile = join(devDataDir, 'demo-token');

async function main(): Promise<void> {
  const urls = await startServices('dev', { dataDir: devDataDir });
  await migrateStore(urls);
  const mongo = await connectMongo(urls.mongoUrl);
  let loaded: string;
  if (await findOrg(mongo.db, ORG)) {
    loaded = 'kept from an earlier run';
  } else {
    const imported = await importBooks(mongo.db, generateBooks({ org_id: ORG, size: 500, seed: 1 }));
    if (!imported.ok) throw new Error(`demo books refused: ${JSON.stringify(imported.errors.slice(0, 5))}`);
    loaded = `just loaded: ${imported.counts.ledger_entries?.inserted ?? 0} entries, ${imported.counts.bank_transactions?.inserted ?? 0} bank transactions, ${imported.counts.inbox_documents?.inserted ?? 0} inbox documents`;
  }
  const token = await demoToken(mongo.db);
  const { examples, duplicateGroups } = await examplesFromStore(mongo.db);
  await mongo.client.close();

  const port = process.env.PORT ? Number(process.env.PORT) : await portOr8080();
  const logDir = join(projectRoot, '.bookstage', 'logs');
  mkdirSync(logDir, { recursive: true });
  // Local webhooks (http, localhost) allowed: this is a development stack (docs/webhooks.md "Safety").
  const env = { WEBHOOK_ALLOW_INSECURE: 'true', ...process.env, MONGO_URL: urls.mongoUrl, REDIS_URL: urls.redisUrl, PORT: String(port), ...(urls.postgresUrl ? { FERRETDB_POSTGRES_URL: urls.postgresUrl } : {}) };
  const children: ChildProcess[] = [
    spawn(process.execPath, [join(projectRoot, 'dist', 'api', 'server.js')], { env, stdio: ['ignore', openSync(join(logDir, 'api.log'), 'a'), 'inherit'] }),
    spawn(process.execPath, [join(projectRoot, 'dist', 'worker', 'main.js')], { env, stdio: ['ignore', openSync(join(logDir, 'worker.log'), 'a'), 'inherit'] }),
  ];
  const stop = (): void => {
    for (const child of children) child.kill('SIGTERM');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  for (const child of children) child.once('exit', (code) => { if (code) { process.stderr.write(`a service process exited with ${code}; see ${logDir}\n`); stop(); process.exitCode = 1; } });
  await waitForPort(port, 30_000, 'the API');

  const base = `http://127.0.0.1:${port}`;
  const kept = process.env.MONGO_URL && process.env.REDIS_URL ? 'the servers of MONGO_URL/REDIS_URL' : devDataDir;
  process.stdout.write(`
bookstage is running at ${base}  (logs: ${logDir})
  data: ${kept}  (kept between runs; \`npm run services -- reset\` wipes it)
  organisation: ${ORG} (demo books ${loaded})
  token (all scopes, actor ${ACTOR}; kept in ${tokenFile}):
    export BOOKSTAGE_URL=${base}
    export BOOKSTAGE_TOKEN=${token}

${examplesText(examples, duplicateGroups)}
MONGO_URL=${urls.mongoUrl}
REDIS_URL=${urls.redisUrl}
Ctrl-C stops the API and the worker; \`npm run services -- stop\` stops Redis and FerretDB (the data stays).
`);
}

/** The kept token when the store still knows it (a reset or another server forgets it), else a new one, kept for next time. */
async function demoToken(db: Db): Promise<string> {
  try {
    const secret = readFileSync(tokenFile, 'utf8').trim();
    const identity = await findTokenBySecret(db, secret);
    if (identity?.org_id === ORG) return secret;
  } catch {
    // no kept token yet
  }
  const { token } = await createToken(db, { org_id: ORG, actor: ACTOR, scopes: [...SCOPES] });
  mkdirSync(devDataDir, { recursive: true });
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  return token;
}

/** Examples from the books as stored now, so that what earlier runs applied is taken into account. */
async function examplesFromStore(db: Db): Promise<{ examples: DemoExamples; duplicateGroups: number }> {
  const c = collections(db);
  const org = await findOrg(db, ORG);
  if (!org) throw new Error(`organisation ${ORG} is missing`);
  const [accounts, transactions, entries, links, documents] = await Promise.all([
    c.bankAccounts.find({ org_id: ORG }).toArray(),
    c.bankTransactions.find({ org_id: ORG }).toArray(),
    c.ledgerEntries.find({ org_id: ORG }).toArray(),
    c.bankLinks.find({ org_id: ORG }).toArray(),
    c.inboxDocuments.find({ org_id: ORG }).toArray(),
  ]);
  const examples = findDemoExamples({
    org,
    accounts: accounts.map((d) => fromStored<BankAccount>(d)),
    transactions: transactions.map((d) => fromStored<BankTransaction>(d)),
    entries: entries.map((d) => fromStored<LedgerEntry>(d)),
    links: links.map((d) => fromStored<BankLink>(d)),
  }, new Date().toISOString().slice(0, 10));
  return { examples, duplicateGroups: findDuplicateGroups(documents.map((d) => fromStored(d))).length };
}

function examplesText(ex: DemoExamples, duplicateGroups: number): string {
  const auth = `-H "Authorization: Bearer $BOOKSTAGE_TOKEN"`;
  const post = (path: string, body: unknown): string =>
    `  curl -s -X POST "$BOOKSTAGE_URL${path}" ${auth} \\\n       -H 'Content-Type: application/json' -d '${JSON.stringify(body)}'`;
  const cli = (args: string): string => `  npm run -s bookstage -- ${args}`;
  const out: string[] = [];
  const repair = (title: string, r: DemoExamples['repair']['moves']): void => {
    if (!r) return;
    out.push(title, cli(`links repair --bank-account ${r.bank_account_id} --counterparty ${r.counterparty_id}`),
      post('/api/v1/cli/bank-matches/ledger-link-repair/stage', { bank_account_id: r.bank_account_id, counterparty_id: r.counterparty_id }), '');
  };
  repair(`Repair links by FIFO: ${ex.repair.moves?.moves ?? 0} links of ${ex.repair.moves?.counterparty_id ?? '?'} move to older invoices (staged):`, ex.repair.moves);
  repair(`A repair that is blocked (${ex.repair.blocked?.blockers.map((b) => b.code).join(', ') ?? '?'}):`, ex.repair.blocked);
  repair('A repair with nothing to do (noop):', ex.repair.noop);

  const ok = ex.reconcile.ok;
  if (ok) {
    const s = ok.statement;
    out.push(`Reconcile a statement of ${ok.bank_account_id} clearing ${ok.transaction_ids.length} transactions through ${s.end_date} (staged):`,
      cli(`reconcile stage --bank-account ${ok.bank_account_id} --end-date ${s.end_date} --closing-balance ${s.closing_balance_minor} --currency ${s.currency} --transactions ${ok.transaction_ids.join(',')}`),
      post('/api/v1/cli/bank-matches/reconcile/stage', ok), '');
  }
  const bad = ex.reconcile.failing.out_of_balance;
  if (bad) {
    out.push('The same statement 1.00 off (422 out_of_balance; change one field to meet the other checks):',
      cli(`reconcile stage --bank-account ${bad.bank_account_id} --end-date ${bad.statement.end_date} --closing-balance ${bad.statement.closing_balance_minor} --currency ${bad.statement.currency} --transactions ${bad.transaction_ids.join(',')}`), '');
  }
  const { reversible, already_reversed: reversed } = ex.reversal;
  if (reversible) {
    out.push(`Stage a reversal of ledger entry ${reversible} (its open bank links are unlinked):`,
      cli(`ledger reverse ${reversible} --reason "booked twice"`), post(`/api/v1/cli/ledger/entries/${reversible}/reverse/stage`, { reason: 'booked twice' }), '');
  }
  if (reversed) out.push(`Reverse ${reversed} again (409 already_reversed):`, cli(`ledger reverse ${reversed}`), '');
  out.push(`The inbox's ${duplicateGroups} duplicate groups:`, cli('inbox duplicates --limit 5'),
    `  curl -s "$BOOKSTAGE_URL/api/v1/cli/bookkeeping/inbox/duplicates?limit=5" ${auth}`, '',
    'Then review what you staged: npm run -s bookstage -- staged list (approve with another actor\'s token: npm run admin -- tokens create …)', '');
  return out.join('\n');
}

async function portOr8080(): Promise<number> {
  const { createServer } = await import('node:net');
  const free = await new Promise<boolean>((resolve) => {
    const s = createServer().once('error', () => resolve(false)).listen(8080, () => s.close(() => resolve(true)));
  });
  return free ? 8080 : freePort();
}

main().catch((err: unknown) => {
  process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
