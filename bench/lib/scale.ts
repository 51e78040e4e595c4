// How much work each section does: the full counts of bench/README.md, or a
// --smoke run that only proves the bench runs end to end (npm test).

export interface Scale {
  /** Demo org size of the round trip and the mixed load. */
  orgSize: number;
  /** Sequential stagings per round-trip run (≥ 200 for the real figure). */
  stagings: number;
  /** Stagings spread over 8 clients for the throughput figure. */
  concurrentStagings: number;
  /** Repair calls per org size and run. */
  repairCalls: number;
  /** Transactions in the pure plan's record set (100k for the real figure). */
  planSize: number;
  /**
   * Transactions in each worker-scaling job's record set, and jobs per
   * measurement: twice a worker's WORKER_CONCURRENCY (4), so a second worker
   * has jobs to take (with 4, the first worker could take them all).
   */
  scalingRepairSize: number;
  scalingJobs: number;
  /** Repairs of scalingRepairSize applied before the loaded apply (`repair/apply_s_10k_scope_loaded`). */
  applyLoadedOps: number;
  /** Mixed load: clients × calls each. */
  mixClients: number;
  mixCalls: number;
  /** How long a figure that needs the machine to itself waits for a quiet one (bench/lib/cpu-split.ts `untilQuiet`); a smoke run's figures mean nothing, so it does not wait. */
  quietWaitMs: number;
}

export const FULL: Scale = {
  orgSize: 2000,
  stagings: 200,
  concurrentStagings: 200,
  repairCalls: 5,
  planSize: 100_000,
  scalingRepairSize: 10_000,
  scalingJobs: 8,
  applyLoadedOps: 20,
  mixClients: 50,
  mixCalls: 20,
  quietWaitMs: 60_000,
};

export const SMOKE: Scale = {
  orgSize: 100,
  stagings: 8,
  concurrentStagings: 8,
  repairCalls: 1,
  planSize: 1000,
  scalingRepairSize: 100,
  scalingJobs: 2,
  applyLoadedOps: 1,
  mixClients: 3,
  mixCalls: 3,
  quietWaitMs: 0,
};
