// Test-only fault switches, read once from BOOKSTAGE_TEST_FAULTS in the
// worker's own environment when it starts (a comma list; unset in
// production). They exist so the test suite can prove crash and failure
// recovery on the real stack (docs/operating/reliability.md); nothing in the API or a
// job's data can turn them on: the switch is this process's environment only.
//
// Staging (one job: read → take locks → write the operation → store the answer → complete):
//   stage:fail-for-good           every staging job fails at once, without retries
//   stage:crash-after-read        the worker dies (SIGKILL) right after a staging job read its books
//   stage:crash-after-locks       … right after it took its plan locks, before writing the operation
//   stage:crash-after-write       … right after writing the staged operation
//   stage:crash-before-complete   … after any job stored its answer, before BullMQ marks the job complete
// Apply (the journal: docs/design/staged-lifecycle.md "Crash safety"):
//   apply:crash-after-claim       … right after the approved → applying claim was written, before the journal is stored
//   apply:crash-after-journal     … right after the journal was stored (approved → applying), before any write
//   apply:crash-after-write:N     … right after the journal's write N (1-based) was made, before its progress is recorded
//                                 (a batch of inserts holding write N is made only up to N: what a crash in the middle of its insertMany leaves)
//   apply:crash-after-progress:N  … right after the progress of write N was recorded (a batch of inserts ends at N)
//   apply:crash-before-finish     … after every write, before the operation's end state is recorded
//   apply:after-first-write       an apply stops for good after its first journal write (until the test kills the worker)
// Timing:
//   stage:slow                    every staging job takes 3 s more (shutdown and takeover tests need a job in flight)
//   stage:slow-after-locks        a staging job waits 300 ms between taking its locks and writing its operation
const ACTIVE = new Set(
  (process.env.BOOKSTAGE_TEST_FAULTS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

export type TestFault =
  | 'stage:fail-for-good'
  | 'stage:crash-after-read'
  | 'stage:crash-after-locks'
  | 'stage:crash-after-write'
  | 'stage:crash-before-complete'
  | 'apply:crash-after-claim'
  | 'apply:crash-after-journal'
  | `apply:crash-after-write:${number}`
  | `apply:crash-after-progress:${number}`
  | 'apply:crash-before-finish'
  | 'apply:after-first-write'
  | 'stage:slow'
  | 'stage:slow-after-locks';

export const faultOn = (fault: TestFault): boolean => ACTIVE.has(fault);

/**
 * A fault between a staging's writes is on. Those steps are the writes one
 * after the other; on FerretDB 1.x (the store port's insertTogether) a staging makes them in one
 * statement, with nothing between them to crash in, so with such a fault on
 * it takes the steps one by one and the crash tests keep proving them.
 */
export const stagingStepFaultsOn = (): boolean =>
  faultOn('stage:crash-after-locks') || faultOn('stage:crash-after-write') || faultOn('stage:slow-after-locks');

/** Die on the spot, as a crash would: no cleanup, no answer stored, no job completed. */
export function crashIf(fault: TestFault): void {
  if (faultOn(fault)) process.kill(process.pid, 'SIGKILL');
}

/** Take `ms` longer when the fault is on. */
export async function slowIf(fault: TestFault, ms = 3000): Promise<void> {
  if (faultOn(fault)) await new Promise((resolve) => setTimeout(resolve, ms));
}
