// How `npm test` reads each mocha process's output for its closing lines
// (scripts/mocha-summary.ts): the counts, and the failures it prints again
// next to the totals so a log's tail names what failed.
import { expect } from 'chai';
import { failureSection, summaryCount } from '../../scripts/mocha-summary.js';

/** Mocha's list of failures as the spec reporter prints it. */
const FAILURES = [
  '  1 failing',
  '',
  '  1) store: plan locks',
  '       refuses a held subject key:',
  '     AssertionError: expected 200 to equal 409',
  '      at Context.<anonymous> (dist/test/store/plan-locks.test.js:10:5)',
  '',
].join('\n');

/** A whole process's output: the tests, the summary, the failures, the reporter's file timings. */
const FAILED_RUN = [
  '  store: plan locks',
  '    ✔ takes a free subject key',
  '    1) refuses a held subject key',
  '    ✔ 3 passing tests are not a summary line',
  '',
  '',
  '  2 passing (3s)',
  '  1 pending',
  FAILURES,
  '',
  '',
  '  slowest test files (of 1, 3 s in all):',
  '       3.0 s  dist/test/store/plan-locks.test.js',
  '',
].join('\n');

describe("npm test: reading a mocha process's output", () => {
  it('counts the summary lines, not a test title that starts with a number', () => {
    expect([
      summaryCount(FAILED_RUN, 'passing'),
      summaryCount(FAILED_RUN, 'pending'),
      summaryCount(FAILED_RUN, 'failing'),
    ]).to.deep.equal([2, 1, 1]);
    expect(summaryCount('  ✔ a test\n\n  1 passing (5ms)\n', 'failing')).to.equal(0);
  });

  it('gives the failures from the "failing" line up to the file timings', () => {
    expect(failureSection(FAILED_RUN)).to.equal(FAILURES);
  });

  it('gives the failures to the end when no timings follow, and null when nothing failed', () => {
    const cut = FAILED_RUN.slice(0, FAILED_RUN.indexOf('  slowest'));
    expect(failureSection(cut)).to.equal(failureSection(FAILED_RUN));
    expect(failureSection('  ✔ a test\n\n  1 passing (5ms)\n\n  slowest test files (of 1, 0 s in all):\n')).to.equal(
      null,
    );
  });
});
