// The Python tools the tests run (schemathesis for the API fuzz test,
// beancount's bean-check for the books export), each installed by the test
// run itself into a virtualenv of its own under the ignored .cache/, pinned by
// scripts/<tool>/requirements.txt, and reinstalled when that file changes.
// Debian's python3 needs the python3-venv package for `python3 -m venv`; it
// is installed with apt-get the same way the services script installs
// redis-server. Debian tools (hledger) come from apt-get alone.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptInstall, log, which } from './services/processes.js';

// This file runs as dist/scripts/python-tools.js; the checkout is two levels up.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Debian's interpreter first: python3-venv is what makes its `-m venv` work. */
function python(): string {
  for (const candidate of ['/usr/bin/python3', which('python3')]) {
    if (candidate && existsSync(candidate) && canMakeVenv(candidate)) return candidate;
  }
  aptInstall(['python3', 'python3-venv']);
  if (canMakeVenv('/usr/bin/python3')) return '/usr/bin/python3';
  throw new Error('python3 -m venv still does not work after apt-get install python3-venv');
}

function canMakeVenv(bin: string): boolean {
  try {
    execFileSync(bin, ['-c', 'import venv, ensurepip'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The path of `bin` in the venv of `tool`, installing it first when missing or out of date. */
function ensureVenvTool(tool: string, bin: string): string {
  const requirements = join(root, 'scripts', tool, 'requirements.txt');
  const venv = join(root, '.cache', `${tool}-venv`);
  const marker = join(venv, '.requirements-sha256');
  const path = join(venv, 'bin', bin);
  const wanted = createHash('sha256').update(readFileSync(requirements)).digest('hex');
  if (existsSync(path) && existsSync(marker) && readFileSync(marker, 'utf8').trim() === wanted) return path;

  log(`installing ${tool} into ${venv} (pip, pinned by scripts/${tool}/requirements.txt)…`);
  rmSync(venv, { recursive: true, force: true });
  const io = {
    stdio: ['ignore', process.stderr, process.stderr] as ['ignore', NodeJS.WriteStream, NodeJS.WriteStream],
  };
  execFileSync(python(), ['-m', 'venv', venv], io);
  execFileSync(
    join(venv, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', '--no-input', '-r', requirements],
    io,
  );
  writeFileSync(marker, `${wanted}\n`);
  return path;
}

/** The `schemathesis` executable. */
export function ensureSchemathesis(): string {
  return ensureVenvTool('schemathesis', 'schemathesis');
}

/** beancount's `bean-check`. */
export function ensureBeanCheck(): string {
  return ensureVenvTool('beancount', 'bean-check');
}

/** Debian's `hledger`, installed with apt-get when missing. */
export function ensureHledger(): string {
  const found = which('hledger');
  if (found) return found;
  aptInstall(['hledger']);
  const installed = which('hledger');
  if (!installed) throw new Error('hledger not found after apt-get install hledger');
  return installed;
}
