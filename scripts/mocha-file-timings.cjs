// Mocha's spec reporter, plus the slowest test files at the end of a run:
// `npm test` must stay within its time budget on a 2-core machine
// (docs/guide/quick-start.md), and this says where the
// time goes. Time per file runs from its first suite's start to its last
// suite's end, hooks included (a file's `before` that starts processes counts).
// With BOOKSTAGE_TEST_TIMINGS_FILE set (scripts/run-tests.ts sets it), the
// timings of every file are also written there as JSON, seconds by path: the
// next run splits the suite between its processes by them.
// CommonJS because mocha loads reporters with require().
'use strict';
const { writeFileSync } = require('node:fs');
const Mocha = require('mocha');

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END } = Mocha.Runner.constants;
const SHOWN = 15;

class SpecWithFileTimings extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    /** file → { start, end } in ms since the epoch. */
    const spans = new Map();
    const root = process.cwd() + '/';
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (!suite.file) return;
      const span = spans.get(suite.file);
      if (!span) spans.set(suite.file, { start: Date.now(), end: Date.now() });
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const span = suite.file ? spans.get(suite.file) : undefined;
      if (span) span.end = Date.now();
    });
    runner.once(EVENT_RUN_END, () => {
      const rows = [...spans].map(([file, s]) => [file.replace(root, ''), s.end - s.start]).sort((a, b) => b[1] - a[1]);
      const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
      process.stdout.write(`\n  slowest test files (of ${rows.length}, ${(total / 1000).toFixed(0)} s in all):\n`);
      for (const [file, ms] of rows.slice(0, SHOWN))
        process.stdout.write(`    ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}\n`);
      const out = process.env.BOOKSTAGE_TEST_TIMINGS_FILE;
      if (out)
        writeFileSync(
          out,
          JSON.stringify(Object.fromEntries(rows.map(([file, ms]) => [file, Math.round(ms / 100) / 10]))),
        );
    });
  }
}

module.exports = SpecWithFileTimings;
