// Runs before `npm start`, `npm test` and `npm run services`: installs the
// locked dependencies when node_modules is missing or older than the lockfile,
// so that a fresh clone needs nothing but these commands. Plain JS: it runs
// before TypeScript is available.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');

const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs;
if (stale) {
  process.stderr.write('bookstage: installing the locked npm dependencies…\n');
  // Not `npm ci`: the registry here lacks some platform builds of an optional
  // native dependency (msgpackr-extract for darwin/win32), so npm writes a lock
  // without them and then `npm ci` refuses that lock as out of sync.
  // `npm install --no-save` installs the locked versions and never rewrites
  // the lock. npm's output goes to stderr so that commands whose stdout is
  // parsed (`npm run services -- start`) still print only their own lines.
  execSync('npm install --no-save --no-audit --no-fund --loglevel=warn', {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
  });
}
