// Where the CPU goes during a bench section: CPU seconds of each process
// group (API, workers, FerretDB, PostgreSQL, Redis, the bench itself) read
// from the kernel (/proc/PID/stat) before and after, and the machine's busy
// time from /proc/stat. This is the profile bench/README.md quotes for a missed
// target: on one machine the services share the cores, so a figure that
// does not move is often another process's CPU. Linux only; elsewhere the
// split is empty.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';

export type ProcessGroup = 'api' | 'worker' | 'ferretdb' | 'postgres' | 'redis' | 'bench';
export const GROUPS: readonly ProcessGroup[] = ['api', 'worker', 'ferretdb', 'postgres', 'redis', 'bench'];

/** Which pids make up each group now (workers come and go; PostgreSQL backends are found by parent). */
export interface PidSource {
  api: () => number[];
  worker: () => number[];
  redis: number | null;
  ferretdb: number | null;
  /** The postmaster: the parent of every PostgreSQL backend. */
  postgres: number | null;
}

/**
 * The process listening on a loopback TCP port (this machine's servers,
 * whether the bench started them or was given their URLs): the socket's
 * inode from /proc/net/tcp*, then the process holding it.
 */
export function pidListeningOn(port: number): number | null {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const row of text.split('\n').slice(1)) {
      const f = row.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN.
      if (f.length > 9 && f[3] === '0A' && parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  if (inodes.size === 0) return null;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fds: string[] = [];
    try {
      fds = readdirSync(join('/proc', name, 'fd'));
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(join('/proc', name, 'fd', fd));
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) return Number(name);
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return null;
}

/** The pid behind a server URL's port (default ports when the URL names none). */
export function pidOfUrl(url: string | undefined, defaultPort: number): number | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) return null;
    return pidListeningOn(Number(u.port || defaultPort));
  } catch {
    return null;
  }
}

export interface CpuSplit {
  wall_s: number;
  /** Machine busy time ÷ wall time: 2.0 is two cores fully busy. */
  cores_busy: number;
  /** CPU seconds per group; `other` is machine busy time no group accounts for. */
  cpu_s: Record<ProcessGroup | 'other', number>;
  /** Of cpu_s, the seconds spent in the kernel (system time) per group. */
  system_s?: Record<ProcessGroup, number>;
  /** Read and write system calls of each group (/proc/PID/io syscr, syscw): a loopback write wakes its peer, and these are what a call's round trips cost. */
  syscalls?: Record<ProcessGroup, { read: number; write: number }>;
}

const TICKS_PER_S = 100; // USER_HZ on Linux

/** utime+stime (own), stime alone (system) and cutime+cstime (of exited, waited-for children), in seconds. */
function processCpu(pid: number): { own: number; system: number; children: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: it ends at the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const n = (i: number): number => Number(f[i - 3]);
    return { own: (n(14) + n(15)) / TICKS_PER_S, system: n(15) / TICKS_PER_S, children: (n(16) + n(17)) / TICKS_PER_S };
  } catch {
    return { own: 0, system: 0, children: 0 };
  }
}

/** The process's read and write system calls so far (/proc/PID/io; zero where it cannot be read). */
function processIo(pid: number): { read: number; write: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string): number => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
    return { read: field('syscr'), write: field('syscw') };
  } catch {
    return { read: 0, write: 0 };
  }
}

function childrenOf(parent: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(join('/proc', name, 'stat'), 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) out.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** A figure that needs the machine to itself begins once it is at most this busy (cores, over one second), or after the run's `quietWaitMs`. */
const QUIET_CORES = 0.05;

/**
 * Wait, in windows of `windowMs`, until the machine's busy cores over one
 * window fall to `cores` or below, or `maxMs` has passed: what was busy in
 * the last window, and how long the wait took. For a figure that needs the
 * machine to itself (the pure plan in bench/sections/repair.ts, the
 * CPU-bound rounds in bench/sections/worker-scaling.ts, the book pages in
 * bench/sections/books-read.ts).
 */
export async function quietMachine(
  maxMs: number,
  cores = QUIET_CORES,
  windowMs = 1000,
): Promise<{ cores: number; waited_s: number }> {
  const start = Date.now();
  for (;;) {
    const before = machineBusy();
    const t0 = Date.now();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const busy = (machineBusy() - before) / ((Date.now() - t0) / 1000);
    if (busy <= cores || Date.now() - start >= maxMs)
      return { cores: Math.round(busy * 100) / 100, waited_s: Math.round((Date.now() - start) / 100) / 10 };
  }
}

/** quietMachine, waiting at most `maxMs` (the run's `quietWaitMs`), then one log line: what is about to be timed, how busy the machine still was, how long the wait took. */
export async function untilQuiet(log: (line: string) => void, what: string, maxMs: number): Promise<void> {
  const quiet = await quietMachine(maxMs);
  log(`  ${what}: begins with ${quiet.cores} cores busy in the background, after ${quiet.waited_s} s of waiting`);
}

/** Machine busy seconds (all cores) from /proc/stat: everything but idle and iowait. */
function machineBusy(): number {
  try {
    const cols = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = cols.reduce((a, b) => a + b, 0);
    return (total - (cols[3] ?? 0) - (cols[4] ?? 0)) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

type Snapshot = {
  at: number;
  busy: number;
  byGroup: Record<ProcessGroup, number>;
  system: Record<ProcessGroup, number>;
  io: Record<ProcessGroup, { read: number; write: number }>;
};

function snapshot(pids: PidSource): Snapshot {
  const postmaster = pids.postgres;
  const members: Record<ProcessGroup, number[]> = {
    api: pids.api(),
    worker: pids.worker(),
    ferretdb: pids.ferretdb === null ? [] : [pids.ferretdb],
    postgres: postmaster === null ? [] : [postmaster, ...childrenOf(postmaster)],
    redis: pids.redis === null ? [] : [pids.redis],
    bench: [process.pid],
  };
  const byGroup = {} as Record<ProcessGroup, number>;
  const system = {} as Record<ProcessGroup, number>;
  const io = {} as Record<ProcessGroup, { read: number; write: number }>;
  let exitedWorkers = 0;
  for (const g of GROUPS) {
    let own = 0,
      sys = 0,
      read = 0,
      write = 0;
    for (const pid of members[g]) {
      const cpu = processCpu(pid);
      const calls = processIo(pid);
      // The bench's own CPU is read from process.cpuUsage() below. It is the parent of the API and
      // workers: a worker stopped during a section (worker scaling) is in its children time.
      if (g === 'bench') exitedWorkers = cpu.children;
      else own += cpu.own;
      // Exited backends are charged to the postmaster's children time, so none is lost between snapshots.
      if (pid === postmaster) own += cpu.children;
      sys += cpu.system;
      read += calls.read;
      write += calls.write;
    }
    byGroup[g] = own;
    system[g] = sys;
    io[g] = { read, write };
  }
  const self = process.cpuUsage();
  byGroup.bench = (self.user + self.system) / 1e6;
  byGroup.worker += exitedWorkers;
  return { at: performance.now(), busy: machineBusy(), byGroup, system, io };
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** CPU split of `run`. */
export async function withCpuSplit<T>(pids: PidSource, run: () => Promise<T>): Promise<{ value: T; split: CpuSplit }> {
  const before = snapshot(pids);
  const value = await run();
  const after = snapshot(pids);
  const wall = (after.at - before.at) / 1000;
  const busy = after.busy - before.busy;
  const cpu = {} as Record<ProcessGroup | 'other', number>;
  let accounted = 0;
  for (const g of GROUPS) {
    const used = Math.max(0, after.byGroup[g] - before.byGroup[g]);
    cpu[g] = round2(used);
    accounted += used;
  }
  cpu.other = round2(Math.max(0, busy - accounted));
  const system = {} as Record<ProcessGroup, number>;
  const syscalls = {} as Record<ProcessGroup, { read: number; write: number }>;
  for (const g of GROUPS) {
    // A process that came or went between the snapshots makes a difference below zero: none is counted then.
    system[g] = round2(Math.max(0, after.system[g] - before.system[g]));
    syscalls[g] = {
      read: Math.max(0, after.io[g].read - before.io[g].read),
      write: Math.max(0, after.io[g].write - before.io[g].write),
    };
  }
  return {
    value,
    split: {
      wall_s: round2(wall),
      cores_busy: round2(wall > 0 ? busy / wall : 0),
      cpu_s: cpu,
      system_s: system,
      syscalls,
    },
  };
}

/** Two splits as one (a section's repeats). */
export function addSplits(a: CpuSplit | undefined, b: CpuSplit): CpuSplit {
  if (!a) return b;
  const wall = a.wall_s + b.wall_s;
  const cpu = {} as Record<ProcessGroup | 'other', number>;
  for (const g of [...GROUPS, 'other' as const]) cpu[g] = round2(a.cpu_s[g] + b.cpu_s[g]);
  const sum: CpuSplit = {
    wall_s: round2(wall),
    cores_busy: round2(wall > 0 ? (a.cores_busy * a.wall_s + b.cores_busy * b.wall_s) / wall : 0),
    cpu_s: cpu,
  };
  if (a.system_s && b.system_s && a.syscalls && b.syscalls) {
    const system = {} as Record<ProcessGroup, number>;
    const syscalls = {} as Record<ProcessGroup, { read: number; write: number }>;
    for (const g of GROUPS) {
      system[g] = round2(a.system_s[g] + b.system_s[g]);
      syscalls[g] = { read: a.syscalls[g].read + b.syscalls[g].read, write: a.syscalls[g].write + b.syscalls[g].write };
    }
    sum.system_s = system;
    sum.syscalls = syscalls;
  }
  return sum;
}

/** One line per section: where its CPU went, as shares of the machine's busy time. */
export function formatSplit(name: string, split: CpuSplit): string {
  const total = GROUPS.reduce((a, g) => a + split.cpu_s[g], split.cpu_s.other) || 1;
  const parts = [...GROUPS, 'other' as const].map((g) => `${g} ${Math.round((split.cpu_s[g] / total) * 100)}%`);
  const line = `${name}: ${split.wall_s} s, ${split.cores_busy} of ${cpus().length} cores busy — ${parts.join(', ')}`;
  if (!split.system_s || !split.syscalls) return line;
  const kernel = GROUPS.map(
    (g) =>
      `${g} ${split.cpu_s[g] > 0 ? Math.round((split.system_s![g] / split.cpu_s[g]) * 100) : 0}% in the kernel, ${split.syscalls![g].write} writes`,
  );
  return `${line}\n    ${kernel.join('; ')}`;
}
