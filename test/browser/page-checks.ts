// What every view of the review page is checked for: an axe-core scan with no
// serious or critical violation, and a screenshot for a person to look at,
// kept as a test artefact (docs/guide/review-page.md "Tests"): one folder per
// run under test-artifacts/screenshots/, the last few runs kept.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { projectRoot } from '../../scripts/services/lifecycle.js';

/** Not the build cache (.cache/ is rebuilt and overwritten): a folder of its own, git-ignored. */
export const SCREENSHOT_ROOT = join(projectRoot, 'test-artifacts', 'screenshots');
/** Runs kept, this one included: enough to compare with the run before, never a disk filling up. */
export const KEPT_RUNS = 3;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's WCAG 2.1 A/AA rules on the current view. Injected through the
 * DevTools protocol (page.evaluate), which the page's CSP does not apply to:
 * the page itself still runs no inline script.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate<
    AxeViolation[]
  >(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`);
}

/** Those of `axeViolations` whose impact is serious or critical. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** A run's folder name: its start time (UTC, sortable) and the process id, so two runs started in one second never share it. */
export function runStamp(at: Date, pid: number): string {
  return `${at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-')}-${pid}`;
}

/** Removes all but the newest `keep` run folders of `root` (names sort by time). */
export function pruneRuns(root: string, keep: number): string[] {
  const runs = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const old = runs.slice(0, Math.max(0, runs.length - keep));
  for (const name of old) rmSync(join(root, name), { recursive: true, force: true });
  return old;
}

let runDir: string | null = null;

/** This run's screenshot folder, made (and the older runs pruned) on its first screenshot; null while none was taken. */
export function screenshotRunDir(): string | null {
  return runDir;
}

/** Saves the view as `review-<view>.png` in this run's folder. */
export async function screenshot(page: Page, view: string): Promise<string> {
  if (runDir === null) {
    const dir = join(SCREENSHOT_ROOT, runStamp(new Date(), process.pid));
    mkdirSync(dir, { recursive: true });
    pruneRuns(SCREENSHOT_ROOT, KEPT_RUNS);
    runDir = dir;
  }
  const path = join(runDir, `review-${view}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
