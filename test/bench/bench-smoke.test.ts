// `npm run bench` runs end to end at a tiny size (--smoke) and writes JSON of
// exactly the shape bench/README.md describes. No figure is judged here: speed lives in
// the bench itself, never in npm test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { stack } from '../helpers/stack.js';

const benchMain = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'run.js');

const SHAPE = {
  round_trip: ['p50_ms', 'p95_ms', 'floor_p50_ms', 'ratio_p50', 'throughput_8_rps'],
  repair: [
    'job_ms',
    'growth_1k_to_100k',
    'plan_100k_ms',
    'plan_100k_ms_v8_defaults',
    'store_cpu_s_10k_scope',
    'apply_s_10k_scope',
    'apply_s_10k_scope_loaded',
    'apply_s_10k_scope_runs',
    'apply_s_10k_scope_loaded_runs',
  ],
  duplicates: ['first_page_ms', 'next_page_ms', 'growth_10k_to_100k'],
  worker_scaling: [
    'one_jobs_s',
    'two_jobs_s',
    'ratio',
    'cores',
    'cpu_bound_ratio',
    'cpu_bound_ratio_v8_defaults',
    'cpu_bound_round_ratios',
    'machine_ratio',
  ],
  mixed_load: [
    'rps',
    'p50_ms',
    'p99_ms',
    'errors_5xx',
    'p99_duplicates_ms',
    'p99_reverse_ms',
    'p99_repair_ms',
    'p99_books_ms',
    'p99_entries_ms',
    'p99_matches_ms',
    'p99_suggestions_ms',
    'warmup_rps',
    'warmup_p99_ms',
  ],
  own_cpu: ['ms_per_call', 'warmup_ms_per_call'],
  peak_rss_mb: ['api', 'worker'],
  books_read: [
    'first_page_ms',
    'next_page_ms',
    'growth_1k_to_100k',
    'by_list',
    'counterparties_ms',
    'counterparties_growth_1k_to_100k',
    'account_ms',
    'account_growth_1k_to_100k',
    'suggestions_ms',
    'suggestions_growth_1k_to_100k',
    'trial_balance_ms',
    'figures_build_s',
  ],
  cli: ['help_ratio', 'help_p50_ms', 'node_floor_p50_ms', 'runs'],
  statement_import: [
    'entries',
    'new_transactions',
    'account_transactions',
    'file_bytes',
    'stage_ms',
    'stage_entries_s',
    'parse_and_read_ms',
    'parse_ms',
    'read_ms',
    'stage_ratio',
    'approve_ms',
    'apply_ms',
    'apply_entries_s',
    'insert_many_ms',
    'insert_many_indexed_ms',
    'apply_ratio',
    'apply_ratio_indexed',
  ],
};

describe('npm run bench (smoke)', function () {
  // The bench's own start-up and every section, on a machine others share.
  this.timeout(300_000);
  // A run mocha gave up on must not go on beside the next tests on the same servers.
  let running: ChildProcess | undefined;
  afterEach(() => {
    if (running?.exitCode === null) running.kill('SIGTERM');
  });

  it('runs every section at a tiny size and writes the JSON shape of the bench results', async () => {
    const s = await stack();
    const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
    const file = join(dir, 'result.json');
    try {
      const output: string[] = [];
      const code = await new Promise<number | null>((resolve) => {
        // --max-minutes: the bench stops itself, and says where it was, before mocha's time-out.
        const child = spawn(
          process.execPath,
          [benchMain, '--smoke', '--sizes', '100,200', '--repeat', '1', '--max-minutes', '4.5', '--json', file],
          {
            env: { ...process.env, MONGO_URL: s.config.mongoUrl, REDIS_URL: s.config.redisUrl },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        running = child;
        child.stdout.on('data', (c: Buffer) => output.push(c.toString()));
        child.stderr.on('data', (c: Buffer) => output.push(c.toString()));
        child.once('exit', resolve);
      });
      expect(code, output.join('')).to.equal(0);
      const result = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
      // The shape, plus where each measured part's CPU went.
      expect(Object.keys(result).sort()).to.deep.equal([...Object.keys(SHAPE), 'cpu_split'].sort());
      const split = result.cpu_split as Record<
        string,
        { wall_s: number; cpu_s: Record<string, number>; syscalls: Record<string, { read: number; write: number }> }
      >;
      expect(Object.keys(split)).to.include.members([
        'round trip, sequential',
        'mixed load',
        'worker scaling, 2 processes',
      ]);
      // The API and the worker both worked during the mixed load, and the servers' processes were found: their
      // write calls are counted exactly, where a tiny load's CPU spread over PostgreSQL's backends can round to 0
      // (and FerretDB, which the hot paths read around in SQL, may not be asked anything in one part).
      const mixed = split['mixed load']!;
      expect(mixed.cpu_s.api).to.be.greaterThan(0);
      expect(mixed.cpu_s.worker).to.be.greaterThan(0);
      expect(mixed.syscalls.postgres!.write, 'PostgreSQL').to.be.greaterThan(0);
      const ferretWrites = Object.values(split).reduce((n, part) => n + (part.syscalls?.ferretdb?.write ?? 0), 0);
      expect(ferretWrites, 'FerretDB').to.be.greaterThan(0);
      for (const [section, keys] of Object.entries(SHAPE))
        expect(Object.keys(result[section]!).sort(), section).to.deep.equal([...keys].sort());
      for (const key of SHAPE.round_trip) expect(result.round_trip![key], key).to.be.a('number').and.greaterThan(0);
      expect(Object.keys(result.repair!.job_ms as object)).to.deep.equal(['100', '200']);
      // The operation worker scaling staged was approved and applied through the API.
      expect(result.repair!.apply_s_10k_scope, 'apply_s_10k_scope').to.be.a('number').and.greaterThan(0);
      // One apply each at --repeat 1: the figure is that apply, before and after the other one (smoke: one loaded).
      expect(result.repair!.apply_s_10k_scope_runs).to.deep.equal([result.repair!.apply_s_10k_scope]);
      expect(result.repair!.apply_s_10k_scope_loaded_runs).to.deep.equal([result.repair!.apply_s_10k_scope_loaded]);
      expect(Object.keys(result.duplicates!.first_page_ms as object)).to.deep.equal(['100', '200']);
      expect(result.mixed_load!.errors_5xx).to.equal(0);
      // Every kind ran in the mix, so each has its own tail.
      for (const kind of ['duplicates', 'reverse', 'repair', 'books'])
        expect(result.mixed_load![`p99_${kind}_ms`], kind).to.be.a('number').and.greaterThan(0);
      // Book pages: both lists, a first and a next page at every size.
      expect(Object.keys(result.books_read!.first_page_ms as object)).to.deep.equal(['100', '200']);
      // The counterparty list and an account's figures at each size (docs/reference/book-reads.md "Cost").
      for (const key of ['counterparties_ms', 'account_ms', 'suggestions_ms'])
        for (const ms of Object.values(result.books_read![key] as Record<string, number>))
          expect(ms, key).to.be.a('number').and.greaterThan(0);
      expect(Object.keys(result.books_read!.counterparties_ms as object)).to.deep.equal(['100', '200']);
      const byList = result.books_read!.by_list as Record<
        string,
        { first_page_ms: Record<string, number>; next_page_ms: Record<string, number> }
      >;
      expect(Object.keys(byList).sort()).to.deep.equal(['entries_by_counterparty', 'transactions_by_account']);
      for (const [list, pages] of Object.entries(byList)) {
        for (const size of ['100', '200']) {
          expect(pages.first_page_ms[size], `${list} first ${size}`).to.be.a('number').and.greaterThan(0);
          expect(pages.next_page_ms[size], `${list} next ${size}`).to.be.a('number').and.greaterThan(0);
        }
      }
      for (const key of SHAPE.cli) expect(result.cli![key], key).to.be.a('number').and.greaterThan(0);
      expect(output.join('')).to.match(/\| bookstage --help ÷ node -e ""/);
      // The statement import's figures (bench/README.md): a file staged and applied, both floors measured.
      for (const key of SHAPE.statement_import)
        expect(result.statement_import![key], `statement_import/${key}`).to.be.a('number').and.greaterThan(0);
      expect(result.statement_import!.new_transactions).to.be.lessThan(result.statement_import!.entries as number);
      expect(output.join(''))
        .to.match(/\| statement import stage ÷ floor/)
        .and.to.match(/\| statement import apply ÷ floor/);
      // The own CPU per call (bench/README.md "What each section measures"): measured, not merely present.
      expect(result.own_cpu!.ms_per_call).to.be.a('number').and.greaterThan(0);
      // The warm-up run before the mixed load's counted runs (bench/README.md "What each section measures"): measured too, and kept apart.
      expect(result.own_cpu!.warmup_ms_per_call).to.be.a('number').and.greaterThan(0);
      expect(result.mixed_load!.warmup_rps).to.be.a('number').and.greaterThan(0);
      expect(result.cpu_split).to.have.property('mixed load (warm-up)');
      expect(result.repair!.store_cpu_s_10k_scope).to.be.a('number').and.at.least(0);
      expect(result.worker_scaling!.cpu_bound_ratio).to.be.a('number').and.greaterThan(0);
      expect(result.worker_scaling!.cpu_bound_ratio_v8_defaults).to.be.a('number').and.greaterThan(0);
      // Five paired rounds at least, each a positive ratio; the machine row too.
      expect(result.worker_scaling!.cpu_bound_round_ratios).to.have.length.of.at.least(5);
      for (const r of result.worker_scaling!.cpu_bound_round_ratios as number[])
        expect(r).to.be.a('number').and.greaterThan(0);
      expect(result.worker_scaling!.machine_ratio).to.be.a('number').and.greaterThan(0);
      expect(output.join('')).to.match(/\| round trip p50 ÷ floor/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
