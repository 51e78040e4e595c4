// Test-only fault switches, read once from BOOKSTAGE_TEST_FAULTS when the
// worker starts (a comma list; unset in production). They exist so the test
// suite can prove crash and failure recovery on the real stack; nothing in
// the API can turn them on.
//   stage:fail-for-good          every staging job fails at once, without retries
//   stage:crash-after-write      the worker process dies (SIGKILL) right after writing a staged operation
//   apply:after-first-write      an apply stops for good after its first journal write (until the test kills the worker)
const ACTIVE = new Set((process.env.BOOKSTAGE_TEST_FAULTS ?? '').split(',').map((s) => s.trim()).filter(Boolean));

export type TestFault = 'stage:fail-for-good' | 'stage:crash-after-write' | 'apply:after-first-write';

export const faultOn = (fault: TestFault): boolean => ACTIVE.has(fault);

/** Die on the spot, as a crash would: no cleanup, no answer stored, no job completed. */
export function crashIf(fault: TestFault): void {
  if (faultOn(fault)) process.kill(process.pid, 'SIGKILL');
}
