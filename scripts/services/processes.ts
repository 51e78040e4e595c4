import { execFileSync, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';

export const log = (message: string): void => {
  process.stderr.write(`bookstage services: ${message}\n`);
};

/** Start a long-lived server detached from this process, output to a log file. */
export function spawnDetached(
  command: string,
  args: string[],
  logFile: string,
  options: { uid?: number; gid?: number } = {},
): number {
  const out = openSync(logFile, 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out], ...options });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  child.unref();
  return child.pid;
}

/** True if `pid` is alive and its command line mentions `name` (pids get reused). */
export function isOurProcess(pid: number, name: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(name);
  } catch {
    return false;
  }
}

export async function stopProcess(pid: number, name: string, timeoutMs = 10_000): Promise<void> {
  if (!isOurProcess(pid, name)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && isOurProcess(pid, name)) await new Promise((r) => setTimeout(r, 50));
  if (isOurProcess(pid, name)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

export function which(command: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** What a process that is not root says of packages it cannot install, and what else would do (`otherwise`). */
export function aptRefusal(packages: string[], otherwise?: string): string {
  const list = packages.join(' ');
  return `missing Debian packages ${list}; install them (apt-get install -y ${list})${otherwise ? ` or ${otherwise}` : ''}`;
}

/** Install Debian packages; only root can, which is how CI and sessions run. */
export function aptInstall(packages: string[], otherwise?: string): void {
  if (!isRoot()) throw new Error(aptRefusal(packages, otherwise));
  log(`installing Debian packages: ${packages.join(' ')} (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-q'], { stdio: ['ignore', process.stderr, process.stderr], env });
  execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], {
    stdio: ['ignore', process.stderr, process.stderr],
    env,
  });
}
