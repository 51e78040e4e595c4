// Test-only fault switches, read once from BOOKSTAGE_TEST_FAULTS when the
// worker starts (a comma list; unset in production). They exist so the test
// suite can prove crash and failure recovery on the real stack; nothing in
// the API can turn them on.
//   stage:fail-for-good          every staging job fails at once, without retries
//   stage:crash-after-write      the worker process dies (SIGKILL) right after writing a staged operation
//   apply:after-first-write      an apply stops for good after its first journal write (until the test kills the worker)
//   stage:slow                   every staging job takes 3 s more (shutdown and takeover tests need a job in flight)
const ACTIVE = new Set((process.env.BOOKSTAGE_TEST_FAULTS ?? '').split(',').map((s) => s.trim()).filter(Boolean));

export type TestFault = 'stage:fail-for-good' | 'stage:crash-after-write' | 'apply:after-first-write' | 'stage:slow';

export const faultOn = (fault: TestFault): boolean => ACTIVE.has(fault);

/** Die on the spot, as a crash would: no cleanup, no answer stored, no job completed. */
export function crashIf(fault: TestFault): void {
  if (faultOn(fault)) process.kill(process.pid, 'SIGKILL');
}

/** Take `ms` longer when the fault is on. */
export async function slowIf(fault: TestFault, ms = 3000): Promise<void> {
  if (faultOn(fault)) await new Promise((resolve) => setTimeout(resolve, ms));
}
