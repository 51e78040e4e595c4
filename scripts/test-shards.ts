// Splitting the suite's files between concurrent mocha processes
// (docs/guide/quick-start.md "Running the tests"). Much of the suite waits —
// for a lease to lapse, a killed process to restart, a retry to come round —
// so two processes on two cores finish well before one. Each process gets its
// own database and queue prefix, so they share only the servers.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Seconds per test file (paths relative to the project, `dist/test/…test.js`), from an earlier run. */
export type FileWeights = Record<string, number>;

/** Every compiled test file under `dir`, sorted: the suite (.mocharc.json names no files; the runner always does). */
export function testFiles(root: string, dir = join(root, 'dist', 'test')): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(root, path));
    else if (entry.name.endsWith('.test.js')) out.push(relative(root, path));
  }
  return out.sort();
}

/**
 * Longest first onto the least loaded shard: the classic greedy split, within
 * 4/3 of the best. A file without a weight counts as the median weight.
 * Deterministic: the same files and weights give the same shards.
 */
export function splitFiles(files: readonly string[], weights: FileWeights, shards: number): string[][] {
  const known = files
    .map((f) => weights[f])
    .filter((w): w is number => typeof w === 'number')
    .sort((a, b) => a - b);
  const median = known.length > 0 ? known[Math.floor(known.length / 2)]! : 1;
  const weighed = files.map((file) => ({ file, weight: weights[file] ?? median }));
  weighed.sort((a, b) => b.weight - a.weight || (a.file < b.file ? -1 : 1));
  const out = Array.from({ length: Math.max(1, shards) }, () => ({ files: [] as string[], load: 0 }));
  for (const { file, weight } of weighed) {
    const lightest = out.reduce((best, s) => (s.load < best.load ? s : best));
    lightest.files.push(file);
    lightest.load += weight;
  }
  return out.map((s) => s.files.sort()).filter((s) => s.length > 0);
}

/** The weights the last run on this checkout measured, else the ones kept in the repository, else none. */
export function readWeights(paths: readonly string[]): FileWeights {
  for (const path of paths) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as FileWeights;
    } catch {
      // Absent or unreadable: the next source.
    }
  }
  return {};
}
