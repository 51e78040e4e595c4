/** How long the API lets in-flight requests finish on SIGTERM: the longest wait it grants, plus 5 s to answer. */
export function shutdownGraceMs(stageWaitMaxMs: number): number {
  return Math.max(25_000, stageWaitMaxMs + 5_000);
}
