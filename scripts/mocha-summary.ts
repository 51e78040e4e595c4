// Reading a mocha process's output (spec reporter plus
// scripts/mocha-file-timings.cjs) for `npm test`'s closing lines.

/** Mocha's summary count for `word` ("passing", "failing", "pending"); 0 when absent. Anchored so a test title never counts. */
export function summaryCount(text: string, word: 'passing' | 'failing' | 'pending'): number {
  return Number(
    text
      .match(new RegExp(`^\\s*(\\d+) ${word}\\b`, 'gm'))
      ?.pop()
      ?.trim()
      .split(' ')[0] ?? 0,
  );
}

/**
 * Mocha's list of failures: from its "N failing" line to the file timings
 * the reporter prints after it, or to the end. Null when nothing failed.
 */
export function failureSection(text: string): string | null {
  const start = text.search(/^\s*\d+ failing\b/m);
  if (start < 0) return null;
  const rest = text.slice(start);
  const end = rest.search(/^\s*slowest test files\b/m);
  return `${(end < 0 ? rest : rest.slice(0, end)).trimEnd()}\n`;
}
