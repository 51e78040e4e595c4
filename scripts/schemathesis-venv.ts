// Schemathesis (PyPI) for the API fuzz test, installed by the test run itself
// into a virtualenv under the ignored .cache/, pinned by
// scripts/schemathesis/requirements.txt. Debian's python3 needs the
// python3-venv package for `python3 -m venv`; it is installed with apt-get the
// same way the services script installs redis-server.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptInstall, log, which } from './services/processes.js';

// This file runs as dist/scripts/schemathesis-venv.js; the checkout is two levels up.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const REQUIREMENTS = join(root, 'scripts', 'schemathesis', 'requirements.txt');
const VENV = join(root, '.cache', 'schemathesis-venv');
const MARKER = join(VENV, '.requirements-sha256');

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

/** The path of the `schemathesis` executable, installing it first when missing or out of date. */
export function ensureSchemathesis(): string {
  const bin = join(VENV, 'bin', 'schemathesis');
  const wanted = createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex');
  if (existsSync(bin) && existsSync(MARKER) && readFileSync(MARKER, 'utf8').trim() === wanted) return bin;

  log(`installing schemathesis into ${VENV} (pip, pinned by scripts/schemathesis/requirements.txt)…`);
  rmSync(VENV, { recursive: true, force: true });
  const io = {
    stdio: ['ignore', process.stderr, process.stderr] as ['ignore', NodeJS.WriteStream, NodeJS.WriteStream],
  };
  execFileSync(python(), ['-m', 'venv', VENV], io);
  execFileSync(
    join(VENV, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', '--no-input', '-r', REQUIREMENTS],
    io,
  );
  writeFileSync(MARKER, `${wanted}\n`);
  return bin;
}
