// `npm start`: everything a newcomer needs to try the service. Starts (or
// reuses) the local servers, loads the demo organisation, creates a token,
// starts one API and one worker process, prints how to call it, and stops
// what it started on Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { generateBooks } from '../shared/demo/books-generator.js';
import { createToken, SCOPES } from '../shared/storage/api-tokens.js';
import { importBooks } from '../shared/books/import.js';
import { collections } from '../shared/storage/collections.js';
import { connectMongo } from '../shared/storage/mongo.js';
import { freePort, waitForPort } from './services/ports.js';
import { projectRoot, startServices } from './services/lifecycle.js';
import { migrateStore } from './services/migrate.js';

const ORG = 'org_demo';

async function main(): Promise<void> {
  const urls = await startServices('dev');
  await migrateStore(urls);
  const mongo = await connectMongo(urls.mongoUrl);
  const imported = await importBooks(mongo.db, generateBooks({ org_id: ORG, size: 500, seed: 1 }));
  if (!imported.ok) throw new Error(`demo books refused: ${JSON.stringify(imported.errors.slice(0, 5))}`);
  const { token } = await createToken(mongo.db, { org_id: ORG, actor: 'demo:you', scopes: [...SCOPES] });
  const example = await reversibleEntry(mongo.db);
  const repair = await busiestCounterparty(mongo.db);
  await mongo.client.close();

  const port = process.env.PORT ? Number(process.env.PORT) : await portOr8080();
  const logDir = join(projectRoot, '.bookstage', 'logs');
  mkdirSync(logDir, { recursive: true });
  const env = { ...process.env, MONGO_URL: urls.mongoUrl, REDIS_URL: urls.redisUrl, PORT: String(port), ...(urls.postgresUrl ? { FERRETDB_POSTGRES_URL: urls.postgresUrl } : {}) };
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
  process.stdout.write(`
bookstage is running at ${base}  (logs: ${logDir})
  organisation: ${ORG} (demo books: ${imported.counts.ledger_entries?.inserted ?? 0} new entries)
  token (all scopes, actor demo:you):
    export BOOKSTAGE_URL=${base}
    export BOOKSTAGE_TOKEN=${token}

Stage a reversal of ledger entry ${example}:
  curl -s -X POST "$BOOKSTAGE_URL/api/v1/cli/ledger/entries/${example}/reverse/stage" \\
       -H "Authorization: Bearer $BOOKSTAGE_TOKEN" -H 'Content-Type: application/json' \\
       -d '{"reason": "demo"}'

Repair the links of ${repair.counterparty_id} on ${repair.bank_account_id} (FIFO):
  curl -s -X POST "$BOOKSTAGE_URL/api/v1/cli/bank-matches/ledger-link-repair/stage" \\
       -H "Authorization: Bearer $BOOKSTAGE_TOKEN" -H 'Content-Type: application/json' \\
       -d '{"bank_account_id": "${repair.bank_account_id}", "counterparty_id": "${repair.counterparty_id}"}'

The inbox's duplicate groups:
  curl -s "$BOOKSTAGE_URL/api/v1/cli/bookkeeping/inbox/duplicates?limit=5" -H "Authorization: Bearer $BOOKSTAGE_TOKEN"

MONGO_URL=${urls.mongoUrl}
REDIS_URL=${urls.redisUrl}
Ctrl-C stops the API and the worker; \`npm run services -- stop\` stops Redis and FerretDB.
`);
}

async function portOr8080(): Promise<number> {
  const { createServer } = await import('node:net');
  const free = await new Promise<boolean>((resolve) => {
    const s = createServer().once('error', () => resolve(false)).listen(8080, () => s.close(() => resolve(true)));
  });
  return free ? 8080 : freePort();
}

/** A posted entry that is not a reversal and has no reconciled links: one the demo curl can really reverse. */
async function reversibleEntry(db: import('mongodb').Db): Promise<string> {
  const c = collections(db);
  const reconciledLinkEntries = new Set<string>();
  const reconciled = await c.bankTransactions.find({ org_id: ORG, status: 'reconciled' }, { projection: { _id: 1 } }).toArray();
  const links = await c.bankLinks.find({ org_id: ORG, bank_transaction_id: { $in: reconciled.map((t) => t._id) } }, { projection: { ledger_entry_id: 1 } }).toArray();
  for (const l of links) reconciledLinkEntries.add(l.ledger_entry_id);
  const entries = await c.ledgerEntries.find({ org_id: ORG, status: 'posted', reversal_of: null }, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray();
  return entries.find((e) => !reconciledLinkEntries.has(e._id))?._id ?? entries[0]?._id ?? 'le_missing';
}

/** The account and counterparty with the most unreconciled transactions: the repair example with the most to do. */
async function busiestCounterparty(db: import('mongodb').Db): Promise<{ bank_account_id: string; counterparty_id: string }> {
  const txns = await collections(db).bankTransactions
    .find({ org_id: ORG, status: 'unreconciled' }, { projection: { bank_account_id: 1, counterparty_id: 1 } })
    .toArray();
  const counts = new Map<string, number>();
  for (const t of txns) {
    const key = `${t.bank_account_id} ${t.counterparty_id}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const [bank_account_id, counterparty_id] = (best?.[0] ?? 'ba_missing cp_missing').split(' ');
  return { bank_account_id: bank_account_id!, counterparty_id: counterparty_id! };
}

main().catch((err: unknown) => {
  process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
