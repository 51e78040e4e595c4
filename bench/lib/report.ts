// The bench's result: exactly the JSON shape of bench/README.md (null where a
// figure was not measured in this run), and the one table printed from it.

import type { BooksReadResult } from '../sections/books-read.js';
import type { CliStartResult } from '../sections/cli-start.js';
import type { StatementImportResult } from '../sections/statement-import.js';
import type { MixedLoadResult } from '../sections/mixed-load.js';
import { formatSplit, type CpuSplit } from './cpu-split.js';

type BySize = Record<string, number | null>;

export interface BenchResults {
  round_trip: {
    p50_ms: number;
    p95_ms: number;
    floor_p50_ms: number;
    ratio_p50: number;
    throughput_8_rps: number;
  } | null;
  repair: {
    job_ms: BySize;
    growth_1k_to_100k: number | null;
    plan_100k_ms: number | null;
    plan_100k_ms_v8_defaults?: number | null;
    store_cpu_s_10k_scope: number | null;
    apply_s_10k_scope?: number | null;
    apply_s_10k_scope_loaded?: number | null;
    /** The applies each median is of, in order (bench/sections/repair-apply.ts). */
    apply_s_10k_scope_runs?: number[];
    apply_s_10k_scope_loaded_runs?: number[];
  } | null;
  duplicates: { first_page_ms: BySize; next_page_ms: BySize; growth_10k_to_100k: number | null } | null;
  worker_scaling: {
    one_jobs_s: number;
    two_jobs_s: number;
    ratio: number;
    cores: number;
    cpu_bound_ratio: number;
    cpu_bound_ratio_v8_defaults: number;
    cpu_bound_round_ratios: number[];
    machine_ratio: number;
  } | null;
  /** The medians of the measured runs, and the warm-up run's throughput and p99 beside them. */
  mixed_load: (MixedLoadResult & { warmup_rps?: number; warmup_p99_ms?: number }) | null;
  /** The API's and workers' own CPU per mixed-load call, from each run's CPU split: the median of the counted runs; the warm-up run's beside it. */
  own_cpu: { ms_per_call: number; warmup_ms_per_call?: number } | null;
  peak_rss_mb: { api: number; worker: number } | null;
  /** Not in the shape: where each section's CPU went (bench/lib/cpu-split.ts). */
  cpu_split: Record<string, CpuSplit>;
  books_read: BooksReadResult | null;
  cli: CliStartResult | null;
  statement_import: StatementImportResult | null;
}

/** Where and how a run happened: printed above the table, not part of the JSON. */
export interface RunInfo {
  date: string;
  machine: string;
  command: string;
  seconds: number;
}

export function emptyResults(): BenchResults {
  return {
    round_trip: null,
    repair: null,
    duplicates: null,
    worker_scaling: null,
    mixed_load: null,
    own_cpu: null,
    peak_rss_mb: null,
    cpu_split: {},
    books_read: null,
    cli: null,
    statement_import: null,
  };
}

const ms = (x: number | null | undefined): string =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : `${x} ms`;
const num = (x: number | null | undefined, unit = ''): string =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : `${x}${unit}`;
const verdict = (ok: boolean | null): string => (ok === null ? '—' : ok ? 'met' : 'MISSED');

export function printTable(r: BenchResults, info: RunInfo): string {
  const rows: [string, string, string, string][] = [];
  const add = (figure: string, value: string, target = '', status = ''): void => {
    rows.push([figure, value, target, status]);
  };
  if (r.round_trip) {
    const t = r.round_trip;
    add('round trip p50 / p95 (reversal, 200 sequential)', `${ms(t.p50_ms)} / ${ms(t.p95_ms)}`);
    add('floor p50 (empty job add→complete + 1 insert)', ms(t.floor_p50_ms));
    add('round trip p50 ÷ floor', num(t.ratio_p50, '×'), '≤ 4×', verdict(t.ratio_p50 <= 4));
    add('round trip throughput, 8 clients', num(t.throughput_8_rps, ' req/s'));
  }
  if (r.repair) {
    for (const [size, v] of Object.entries(r.repair.job_ms)) add(`repair job, org size ${size}`, ms(v));
    add(
      'repair growth 1k → 100k',
      num(r.repair.growth_1k_to_100k, '×'),
      '≤ 2×',
      verdict(r.repair.growth_1k_to_100k === null ? null : r.repair.growth_1k_to_100k <= 2),
    );
    add(
      "repair plan alone, 100k transactions (a process with the worker's V8 flags)",
      ms(r.repair.plan_100k_ms),
      '< 300 ms',
      verdict(r.repair.plan_100k_ms === null ? null : r.repair.plan_100k_ms < 300),
    );
    if (r.repair.plan_100k_ms_v8_defaults != null)
      add("the same with V8's default helper threads", ms(r.repair.plan_100k_ms_v8_defaults), '', '');
    const store = r.repair.store_cpu_s_10k_scope;
    add(
      'repair job, 10k-transaction scope: store CPU',
      num(store, ' s'),
      '≤ 3 s',
      verdict(store === null ? null : store <= 3),
    );
    const each = (runs: readonly number[] | undefined) =>
      runs && runs.length > 1 ? add('  its applies, in order', runs.map((x) => `${x} s`).join(' '), '', '') : undefined;
    if (r.repair.apply_s_10k_scope != null) {
      add(
        'repair apply, 10k-transaction scope (approve, then apply call to applied)',
        num(r.repair.apply_s_10k_scope, ' s'),
        '≤ 5 s',
        verdict(r.repair.apply_s_10k_scope <= 5),
      );
      each(r.repair.apply_s_10k_scope_runs);
    }
    if (r.repair.apply_s_10k_scope_loaded != null) {
      add(
        'the same with twenty such repairs applied before it',
        num(r.repair.apply_s_10k_scope_loaded, ' s'),
        '≤ 5 s',
        verdict(r.repair.apply_s_10k_scope_loaded <= 5),
      );
      each(r.repair.apply_s_10k_scope_loaded_runs);
    }
  }
  if (r.duplicates) {
    for (const [size, v] of Object.entries(r.duplicates.first_page_ms)) {
      const ok = size === '100000' && v !== null ? v <= 50 : null;
      add(
        `duplicate overview first / next page, ${size} docs`,
        `${ms(v)} / ${ms(r.duplicates.next_page_ms[size])}`,
        size === '100000' ? '≤ 50 ms' : '',
        verdict(ok),
      );
    }
    add('duplicate overview growth 10k → 100k', num(r.duplicates.growth_10k_to_100k, '×'));
  }
  if (r.worker_scaling) {
    const w = r.worker_scaling;
    add(`worker scaling (${w.cores} cores): 1 / 2 processes`, `${w.one_jobs_s} / ${w.two_jobs_s} jobs/s`);
    add('worker scaling ratio (store-bound jobs)', num(w.ratio, '×'));
    add(
      "worker scaling ratio, CPU-bound (pure plans, 1 / 2 processes, the worker's V8 flags)",
      num(w.cpu_bound_ratio, '×'),
      '≥ 1.7×',
      verdict(w.cpu_bound_ratio >= 1.7),
    );
    add(
      "  its paired rounds (1, 2, 2, 1 processes), each round's ratio",
      w.cpu_bound_round_ratios.map((x) => num(x, '×')).join(' '),
    );
    add("the same with V8's default helper threads", num(w.cpu_bound_ratio_v8_defaults, '×'));
    add('the machine: the same rounds for a loop that allocates nothing', num(w.machine_ratio, '×'));
  }
  if (r.mixed_load) {
    const m = r.mixed_load;
    add('mixed load 50×20: throughput', num(m.rps, ' req/s'), '≥ 190 req/s', verdict(m.rps >= 190));
    add('mixed load p50 / p99', `${ms(m.p50_ms)} / ${ms(m.p99_ms)}`, 'p99 ≤ 1 s', verdict(m.p99_ms <= 1000));
    add(
      'mixed load p99 by kind: duplicates / reverse / repair / books / entries / matches / suggestions',
      [
        m.p99_duplicates_ms,
        m.p99_reverse_ms,
        m.p99_repair_ms,
        m.p99_books_ms,
        // Older results have no entries, matches or suggestions in the mix.
        m.p99_entries_ms ?? null,
        m.p99_matches_ms ?? null,
        m.p99_suggestions_ms ?? null,
      ]
        .map(ms)
        .join(' / '),
    );
    add('mixed load 5xx answers', num(m.errors_5xx), '0', verdict(m.errors_5xx === 0));
    if (m.warmup_rps !== undefined)
      add(
        '  the warm-up run before them (not counted): throughput / p99',
        `${num(m.warmup_rps, ' req/s')} / ${ms(m.warmup_p99_ms ?? null)}`,
      );
  }
  if (r.own_cpu) {
    add('own CPU (API + worker) per mixed-load call', num(r.own_cpu.ms_per_call, ' ms'), "half of today's");
    if (r.own_cpu.warmup_ms_per_call !== undefined)
      add('  in the warm-up run (not counted)', num(r.own_cpu.warmup_ms_per_call, ' ms'));
  }
  if (r.books_read) {
    const b = r.books_read;
    for (const [size, v] of Object.entries(b.first_page_ms)) {
      const ok = size === '100000' && v !== null ? v <= 15 : null;
      add(
        `book pages first / next, org size ${size}`,
        `${ms(v)} / ${ms(b.next_page_ms[size])}`,
        size === '100000' ? 'p50 ≤ 15 ms' : '',
        verdict(ok),
      );
    }
    add(
      'book pages growth 1k → 100k',
      num(b.growth_1k_to_100k, '×'),
      '≤ 1.5×',
      verdict(b.growth_1k_to_100k === null ? null : b.growth_1k_to_100k <= 1.5),
    );
    // Older results have no whole reads.
    for (const [size, v] of Object.entries(b.counterparties_ms ?? {})) {
      const account = b.account_ms?.[size] ?? null;
      add(
        `counterparty list (first page) / account show, org size ${size}`,
        `${ms(v)} / ${ms(account)}`,
        size === '100000' ? '≤ 100 / ≤ 20 ms' : '',
        verdict(size === '100000' && v !== null && account !== null ? v <= 100 && account <= 20 : null),
      );
    }
    if (b.counterparties_growth_1k_to_100k != null || b.account_growth_1k_to_100k != null)
      add(
        'counterparty list / account show growth 1k → 100k',
        `${num(b.counterparties_growth_1k_to_100k ?? null, '×')} / ${num(b.account_growth_1k_to_100k ?? null, '×')}`,
        '≤ 2× each',
        verdict(
          b.counterparties_growth_1k_to_100k == null || b.account_growth_1k_to_100k == null
            ? null
            : b.counterparties_growth_1k_to_100k <= 2 && b.account_growth_1k_to_100k <= 2,
        ),
      );
    // Older results have no trial balance.
    for (const [size, v] of Object.entries(b.trial_balance_ms ?? {}))
      add(
        `trial balance, org size ${size}`,
        ms(v),
        size === '100000' ? 'p50 ≤ 100 ms' : '',
        verdict(size === '100000' && v !== null ? v <= 100 : null),
      );
    // Older results have no suggestions.
    const suggestions = b.suggestions_ms ?? {};
    if (suggestions['100000'] !== undefined)
      add(
        'match suggestions p50, org size 100000',
        ms(suggestions['100000']),
        '≤ 50 ms',
        verdict(suggestions['100000'] === null ? null : suggestions['100000'] <= 50),
      );
    for (const [size, v] of Object.entries(suggestions))
      if (size !== '100000') add(`match suggestions, org size ${size}`, ms(v));
    if (b.suggestions_growth_1k_to_100k !== undefined)
      add(
        'match suggestions growth 1k → 100k',
        num(b.suggestions_growth_1k_to_100k, '×'),
        '≤ 1.5×',
        verdict(b.suggestions_growth_1k_to_100k === null ? null : b.suggestions_growth_1k_to_100k <= 1.5),
      );
  }
  if (r.cli) {
    add(
      `bookstage --help / node -e "" p50 (${r.cli.runs} runs each)`,
      `${ms(r.cli.help_p50_ms)} / ${ms(r.cli.node_floor_p50_ms)}`,
    );
    add('bookstage --help ÷ node -e ""', num(r.cli.help_ratio, '×'), '≤ 3×', verdict(r.cli.help_ratio <= 3));
  }
  if (r.statement_import) {
    const s = r.statement_import;
    const what = `${s.entries} CAMT.053 entries on ${s.account_transactions} transactions`;
    add(`statement import stage, ${what}`, `${ms(s.stage_ms)} (${num(s.stage_entries_s, ' entries/s')})`);
    add('statement import stage floor (parse + read the account)', ms(s.parse_and_read_ms));
    add('statement import stage ÷ floor', num(s.stage_ratio, '×'), '< 2×', verdict(s.stage_ratio < 2));
    add(
      `statement import apply, ${s.new_transactions} new transactions`,
      `${ms(s.apply_ms)} (${num(s.apply_entries_s, ' entries/s')})`,
    );
    add('statement import apply floor (bare insertMany)', ms(s.insert_many_ms));
    // Results saved before the field existed have none.
    if (s.insert_many_indexed_ms !== undefined)
      add('statement import: the same insertMany into bank_transactions', ms(s.insert_many_indexed_ms));
    add('statement import apply ÷ floor', num(s.apply_ratio, '×'), '< 2×', verdict(s.apply_ratio < 2));
    if (s.apply_ratio_indexed !== undefined)
      add(
        'statement import apply ÷ the same insertMany into bank_transactions',
        num(s.apply_ratio_indexed, '×'),
        '< 2×',
        verdict(s.apply_ratio_indexed < 2),
      );
  }
  if (r.peak_rss_mb)
    add('peak RSS API / worker', `${num(r.peak_rss_mb.api, ' MB')} / ${num(r.peak_rss_mb.worker, ' MB')}`);
  const header: [string, string, string, string] = ['figure', 'value', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: string[]): string => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    `bench ${info.date} — ${info.machine} — \`${info.command}\` (${info.seconds} s)`,
    '',
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
    '',
    "where the CPU went, per section (shares of the machine's busy time):",
    ...Object.entries(r.cpu_split).map(([name, split]) => `  ${formatSplit(name, split)}`),
    '',
  ].join('\n');
}
