// What every view of the review page is checked for: an axe-core scan with no
// serious or critical violation, and a screenshot for a person to look at.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { projectRoot } from '../../scripts/services/lifecycle.js';

export const SCREENSHOT_DIR = join(projectRoot, '.cache', 'screenshots');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation { id: string; impact: string | null; help: string; targets: string[] }

/**
 * axe-core's WCAG 2.1 A/AA rules on the current view. Injected through the
 * DevTools protocol (page.evaluate), which the page's CSP does not apply to:
 * the page itself still runs no inline script.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `review-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`      screenshot: ${path}`);
  return path;
}
