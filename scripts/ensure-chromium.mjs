// Part of `npm test`: the browser tests (test/browser/, docs/guide/review-page.md)
// drive Debian's `chromium` headless. When it is missing and this machine can
// install it (root, apt-get), install it; otherwise say so and go on: those
// tests then skip with a message naming what is missing. Never fails the run.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import process from 'node:process';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const found = () => CANDIDATES.find((p) => existsSync(p));
const hasApt = () => {
  try {
    execSync('command -v apt-get', { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

if (!found()) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && hasApt()) {
    process.stderr.write('bookstage: installing chromium for the browser tests (apt-get install -y chromium)…\n');
    /** @param {string} cmd */
    const run = (cmd) =>
      execSync(cmd, {
        stdio: ['ignore', process.stderr, process.stderr],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    try {
      try {
        run('apt-get install -y chromium');
      } catch {
        // A fresh machine has no package lists yet.
        run('apt-get update');
        run('apt-get install -y chromium');
      }
    } catch {
      process.stderr.write('bookstage: could not install chromium; the browser tests will be skipped.\n');
    }
  } else {
    process.stderr.write(
      'bookstage: no chromium and no way to install it here (needs root and apt-get); the browser tests will be skipped.\n',
    );
  }
}
