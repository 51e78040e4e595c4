// The README's "Reconcile a statement, CLI only" walk-through, run exactly as
// written (the commands between its marker comments, in order) against a
// fresh `npm start` demo: find the unreconciled transactions, dry-run and
// stage the reconciliation, approve and apply it as the reviewer, read the
// transactions back as reconciled. The demo runs on this run's servers with a
// database, a Redis database and a state folder of its own (as in
// demo-printout.test.ts), so it shares nothing with the other tests. And the
// demo's printed examples never take what the walk-through stages, on a first
// start or on any restart with their operations still pending, so both work
// in either order (shared/demo/demo-examples.ts README_WALKTHROUGH).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/services/lifecycle.js';
import { freePort } from '../../scripts/services/ports.js';
import { generateBooks } from '../../shared/demo/books-generator.js';
import {
  demoBooksFromFile,
  findDemoExamples,
  README_WALKTHROUGH,
  type DemoExamples,
  type DemoBooks,
} from '../../shared/demo/demo-examples.js';
import { reconcileSubjectKey } from '../../shared/kinds/bank-reconcile/plan.js';
import { reversalSubjectKey } from '../../shared/kinds/ledger-reversal/plan.js';
import { pastedEnv, removeDemoData, startDemo, type Demo } from '../helpers/demo-process.js';
import { stack } from '../helpers/stack.js';

const cliMain = join(projectRoot, 'dist', 'cli', 'bookstage', 'main.js');
const CLI = 'npm run -s bookstage -- ';

/** The shell lines of the README between the walk-through markers. */
function walkthrough(): string[] {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const m = /<!-- readme-walkthrough:start -->\n```sh\n([\s\S]*?)```\n<!-- readme-walkthrough:end -->/.exec(readme);
  if (!m) throw new Error('README.md: no walk-through between the readme-walkthrough markers');
  return m[1]!.split('\n').filter((l) => l.trim() !== '');
}

interface Envelope {
  ok: boolean;
  data: Record<string, unknown>;
  error?: { code: string };
}

/** One README line as written, with the staged id in place of `stg_…`, through the built CLI with --json. */
function run(
  line: string,
  env: Record<string, string | undefined>,
  stagedId: string | null,
): { code: number | null; envelope: Envelope; stderr: string } {
  expect(line.includes(CLI), line).to.equal(true);
  let command = line.replace(CLI, `node ${cliMain} `);
  if (command.includes('stg_…')) {
    expect(stagedId, `${line}: no operation staged before it`).to.be.a('string');
    command = command.replace('stg_…', stagedId!);
  }
  const res = spawnSync('bash', ['-c', `${command} --json`], { env: { ...env, NO_COLOR: '1' }, encoding: 'utf8' });
  return { code: res.status, envelope: JSON.parse(res.stdout) as Envelope, stderr: res.stderr };
}

/** What staging the demo's examples holds once run: the repair's, the reconciliation's and the reversal's subject keys and ids. */
function holdsOf(ex: DemoExamples, books: DemoBooks): string[] {
  const held = [...(ex.repair.moves?.holds ?? [])];
  if (ex.reconcile.ok)
    held.push(reconcileSubjectKey(ex.reconcile.ok.bank_account_id), ...ex.reconcile.ok.transaction_ids);
  const reversible = ex.reversal.reversible;
  if (reversible)
    held.push(
      reversalSubjectKey(reversible),
      reversible,
      ...books.links.filter((l) => l.ledger_entry_id === reversible).map((l) => l.bank_transaction_id),
    );
  return held;
}

const ids = (data: Record<string, unknown>): Array<{ id: string; status: string }> =>
  data.items as Array<{ id: string; status: string }>;

describe('README: the CLI-only reconciliation walk-through', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'bookstage-walkthrough-'));
  let env: NodeJS.ProcessEnv;
  let demo: Demo | null = null;

  before(async () => {
    const s = await stack();
    const mongoUrl = new URL(s.config.mongoUrl);
    mongoUrl.pathname = `/bookstage_walkthrough_${randomBytes(4).toString('hex')}`;
    const redis = new URL(s.config.redisUrl);
    redis.pathname = '/8';
    env = {
      ...process.env,
      MONGO_URL: mongoUrl.toString(),
      REDIS_URL: redis.toString(),
      PORT: String(await freePort()),
      WORKER_METRICS_PORT: '0',
      BOOKSTAGE_DEMO_DIR: dir,
      LOG_LEVEL: 'warn',
    };
  });

  after(async () => {
    if (demo && demo.child.exitCode === null) {
      const exited = new Promise((resolve) => demo!.child.once('exit', resolve));
      process.kill(-demo.child.pid!, 'SIGINT');
      await exited;
    }
    await removeDemoData(env.MONGO_URL!, env.REDIS_URL!, dir);
  });

  it('stages exactly what the demo keeps its examples clear of, and the examples stay clear of it on a first start and on restarts with their operations pending', () => {
    const { bank_account_id: account, transaction_ids: transactions } = README_WALKTHROUGH;
    for (const line of walkthrough().filter((l) => l.includes('reconcile stage'))) {
      expect(line)
        .to.include(`--bank-account ${account} `)
        .and.include(`--transactions ${transactions.join(',')}`);
    }
    const reserved = [reconcileSubjectKey(account), ...transactions];
    const books = demoBooksFromFile(generateBooks({ org_id: 'org_demo', size: 500, seed: 1 }));
    const pending = new Set<string>();
    for (const start of ['the first start', 'a restart', 'a second restart']) {
      const held = holdsOf(findDemoExamples(books, new Date().toISOString().slice(0, 10), pending), books);
      expect(held, start).to.have.length.greaterThan(0);
      expect(
        held.filter((id) => reserved.includes(id)),
        start,
      ).to.deep.equal([]);
      for (const id of held) pending.add(id);
    }
  });

  it('runs every README command in order on the demo books: unreconciled → dry run → staged → approved → applied → reconciled', async () => {
    const lines = walkthrough();
    expect(lines).to.have.length(6);
    demo = await startDemo(env);
    const shellEnv = pastedEnv(demo.printout);
    const transactions: readonly string[] = README_WALKTHROUGH.transaction_ids;
    let stagedId: string | null = null;
    let dryHash: unknown;
    const steps: Array<(data: Record<string, unknown>) => void> = [
      (data) => {
        const open = ids(data);
        expect(open.map((t) => t.id)).to.include.members(transactions);
        expect(open.every((t) => t.status === 'unreconciled')).to.equal(true);
      },
      (data) => {
        expect(data).to.include({ dry_run: true, outcome: 'staged' });
        expect(data.summary).to.deep.include({ transactions: 2, closing_balance_minor: 2_437_179, left_out: 0 });
        dryHash = data.plan_hash;
      },
      (data) => {
        expect(data).to.include({ outcome: 'staged', status: 'staged' });
        expect(data.plan_hash).to.equal(dryHash);
        stagedId = data.staged_operation_id as string;
      },
      (data) => expect(data.status).to.equal('approved'),
      (data) => expect(data.status).to.equal('applied'),
      (data) => {
        const done = ids(data).filter((t) => transactions.includes(t.id));
        expect(done.map((t) => [t.id, t.status])).to.deep.equal(transactions.map((id) => [id, 'reconciled']));
      },
    ];
    for (const [i, line] of lines.entries()) {
      const { code, envelope, stderr } = run(line, shellEnv, stagedId);
      expect(code, `${line}\n${stderr}\n${JSON.stringify(envelope)}`).to.equal(0);
      expect(envelope.ok, line).to.equal(true);
      steps[i]!(envelope.data);
    }
  });
});
