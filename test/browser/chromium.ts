// Finds Debian's chromium for the browser tests (installed by
// scripts/ensure-chromium.mjs during `npm test`) and drives it headless with
// playwright-core, which never downloads a browser of its own.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export const chromiumPath = (): string | undefined => CANDIDATES.find((p) => existsSync(p));

export const SKIP_MESSAGE =
  `browser tests skipped: no Chromium at ${CANDIDATES.join(' or ')}. ` +
  'Install it with `apt-get install -y chromium` (npm test does this itself when it runs as root on a machine with apt-get).';

export function launch(executablePath: string): Promise<Browser> {
  // --no-sandbox: the tests run as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
