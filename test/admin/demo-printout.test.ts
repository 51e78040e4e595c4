// `npm start`'s printout (docs/guide/quick-start.md): every printed example carries
// an `# expect:` line and answers what it says, when run in the printed order, on
// the first start and again after a restart over the same books (examples
// staged by the first run are still pending then); the printed `npm run admin`
// hint, pasted after the `export` lines, creates a token. Ctrl-C, sent to the demo's
// process group as a terminal does, stops the API and the worker gracefully:
// no error line, no forced stop in their logs, exit status 0.
// The demo runs on this run's servers with a database, a Redis database and
// a state folder of its own, so it shares nothing with the other tests.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/services/lifecycle.js';
import { freePort } from '../../scripts/services/ports.js';
import { pastedEnv, removeDemoData, startDemo, type Demo } from '../helpers/demo-process.js';
import { stack } from '../helpers/stack.js';

interface Example {
  expect: { status: number; word: string };
  command: string;
}
interface Printout {
  env: Record<string, string>;
  examples: Example[];
  unannotated: string[];
  adminHint: string | null;
}

/** A printed command's first line: curl or the CLI, indented as the examples are. */
const COMMAND = /^ {2}(curl |npm run -s bookstage )/;

/** The pasted environment, the annotated examples, the commands without an `# expect:` line right above them, and the admin hint. */
function parsePrintout(text: string): Printout {
  const env = pastedEnv(text);
  const lines = text.split('\n');
  // The examples: from "Then run these in order" to the review steps (whose commands take an id the reader fills in).
  const from = lines.findIndex((l) => l.startsWith('Then run these in order'));
  const to = lines.findIndex((l) => l.startsWith('Review what you staged'));
  expect(from, "the examples' heading").to.be.greaterThan(0);
  expect(to, "the review steps' heading").to.be.greaterThan(from);
  const unannotated = lines
    .slice(from, to)
    .filter((line, i) => COMMAND.test(line) && !/^ {2}# expect: /.test(lines[from + i - 1] ?? ''));
  const adminHint = /^More tokens: (npm run admin -- tokens create .+)$/m.exec(text)?.[1] ?? null;
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const m = /^ {2}# expect: (\d{3}) (\w+)$/.exec(lines[i]!);
    if (!m) continue;
    let command = lines[++i]!.trim();
    while (command.endsWith('\\')) command = `${command.slice(0, -1).trim()} ${lines[++i]!.trim()}`;
    examples.push({ expect: { status: Number(m[1]), word: m[2]! }, command });
  }
  return { env, examples, unannotated, adminHint };
}

interface Envelope {
  ok: boolean;
  data?: { outcome?: string; dry_run?: boolean };
  warnings?: Array<{ code: string }>;
  error?: { code: string; status: number };
}

/** What an answer is, as the annotations say it: its status and its outcome, error code or `ok`. */
function answerOf(status: number, env: Envelope): { status: number; word: string } {
  if (!env.ok) return { status, word: env.error!.code };
  return { status, word: env.data?.outcome ?? 'ok' };
}

const cliMain = join(projectRoot, 'dist', 'cli', 'bookstage', 'main.js');

/** Runs one printed command as printed (bash, the exported environment) and reads its answer. */
function run(example: Example, env: Record<string, string>): { status: number; word: string } {
  const shellEnv = { ...process.env, ...env, NO_COLOR: '1' };
  if (example.command.startsWith('curl ')) {
    // The printed curl line, with its status code written after the body.
    const res = spawnSync('bash', ['-c', `${example.command} -w '\\n%{http_code}'`], {
      env: shellEnv,
      encoding: 'utf8',
    });
    const text = res.stdout.trimEnd();
    const cut = text.lastIndexOf('\n');
    return answerOf(Number(text.slice(cut + 1)), JSON.parse(text.slice(0, cut)) as Envelope);
  }
  const cli = 'npm run -s bookstage -- ';
  expect(example.command.startsWith(cli) || example.command.includes(` ${cli}`), example.command).to.equal(true);
  // The built CLI that `npm run bookstage` runs, with --json for the raw envelope.
  const res = spawnSync('bash', ['-c', `${example.command.replace(cli, `node ${cliMain} `)} --json`], {
    env: shellEnv,
    encoding: 'utf8',
  });
  const envelope = JSON.parse(res.stdout) as Envelope;
  if (!envelope.ok) return answerOf(envelope.error!.status, envelope);
  // A dry run answers 200 whatever its outcome (docs/reference/http-api.md §6.6).
  if (envelope.data?.dry_run === true) return answerOf(200, envelope);
  // A staging answer's status: 201 for a new operation, 200 for the same plan already pending (warning already_staged).
  const created =
    envelope.data?.outcome === 'staged' && !(envelope.warnings ?? []).some((w) => w.code === 'already_staged');
  return answerOf(created ? 201 : 200, envelope);
}

async function interrupt(demo: Demo): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    demo.child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // Ctrl-C: SIGINT to every process of the foreground group.
  process.kill(-demo.child.pid!, 'SIGINT');
  return exited;
}

describe('npm start: the printed examples and Ctrl-C', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'bookstage-demo-'));
  let env: NodeJS.ProcessEnv;
  let redisUrl: string;

  before(async () => {
    const s = await stack();
    const mongoUrl = new URL(s.config.mongoUrl);
    mongoUrl.pathname = `/bookstage_demo_${randomBytes(4).toString('hex')}`;
    // A Redis database of its own: the suite's worker never takes the demo's jobs.
    const redis = new URL(s.config.redisUrl);
    redis.pathname = '/9';
    redisUrl = redis.toString();
    env = {
      ...process.env,
      MONGO_URL: mongoUrl.toString(),
      REDIS_URL: redisUrl,
      PORT: String(await freePort()),
      WORKER_METRICS_PORT: '0',
      BOOKSTAGE_DEMO_DIR: dir,
      LOG_LEVEL: 'info',
    };
  });

  let demo: Demo | null = null;

  // A failed check leaves the demo running: stop it (and its API and worker) before the next start.
  afterEach(async () => {
    if (demo && demo.child.exitCode === null && demo.child.signalCode === null) await interrupt(demo);
  });

  after(() => removeDemoData(env.MONGO_URL!, redisUrl, dir));

  for (const start of ['the first start', "a restart with the first start's operations still pending"]) {
    it(`answers every example as annotated, in the printed order, on ${start}; Ctrl-C then stops cleanly`, async () => {
      rmSync(join(dir, 'logs'), { recursive: true, force: true });
      demo = await startDemo(env);
      const { env: exported, examples, unannotated, adminHint } = parsePrintout(demo.printout);
      expect(Object.keys(exported)).to.include.members([
        'BOOKSTAGE_URL',
        'BOOKSTAGE_TOKEN',
        'BOOKSTAGE_REVIEWER_TOKEN',
        'MONGO_URL',
        'REDIS_URL',
      ]);
      expect(unannotated, 'printed commands without an # expect: line').to.deep.equal([]);
      // The statement import is printed, as a dry run (stable on every start).
      expect(examples.map((e) => e.command)).to.satisfy((c: string[]) =>
        c.some((command) => /^npm run -s bookstage -- statements import \S+ --account \S+ --dry-run$/.test(command)),
      );
      const statuses = examples.map((e) => `${e.expect.status} ${e.expect.word}`);
      // Every kind of answer the demo promises is there: a refusal, a read, and new operations to review.
      expect(statuses).to.include.members(['200 ok', '200 blocked', '201 staged']);
      const got = examples.map((e) => {
        const a = run(e, exported);
        return `${a.status} ${a.word}`;
      });
      expect(got).to.deep.equal(statuses);

      // The admin hint as printed, in a shell that has only the pasted exports: its token opens the API as the actor it names.
      expect(adminHint, "the printout's admin hint").to.be.a('string');
      const created = spawnSync('bash', ['-c', adminHint!], { cwd: projectRoot, env: exported, encoding: 'utf8' });
      expect(created.status, created.stderr + created.stdout).to.equal(0);
      const secret = /^(bst_\S+)$/m.exec(created.stdout)?.[1];
      expect(secret, created.stdout).to.be.a('string');
      const me = await fetch(`${exported.BOOKSTAGE_URL}/api/v1/cli/whoami`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      const who = (await me.json()) as { data: { org_id: string; actor: string; scopes: string[] } };
      expect(me.status, JSON.stringify(who)).to.equal(200);
      expect(who.data).to.include({ org_id: 'org_demo', actor: 'NAME' });
      expect(who.data.scopes).to.include.members(['staged:approve', 'staged:read']);

      const stopped = await interrupt(demo);
      expect(stopped, demo.stderr()).to.deep.equal({ code: 0, signal: null });
      expect(demo.stderr()).to.equal('');
      for (const name of ['api', 'worker']) {
        const log = readFileSync(join(dir, 'logs', `${name}.log`), 'utf8');
        expect(log, name).to.match(/"msg":"(api|worker) stopped"/);
        expect(log, name).not.to.match(/forced|timed out|shutdown failed/);
      }
    });
  }
});
