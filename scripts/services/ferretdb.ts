// FerretDB 1.24.2 built from the Go module proxy, the way that works:
// `go install` does not work (no version listing; an empty version.txt panics
// at start), so the module is downloaded, its version file written, and the
// binary built inside FerretDB's own module, once, into an ignored cache.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, spawnDetached, which } from './processes.js';
import { freePort, waitForPort } from './ports.js';
import { ferretPostgresUrl } from './postgres.js';

export const FERRETDB_VERSION = 'v1.24.2';
const MODULE = 'github.com/FerretDB/FerretDB';

export interface FerretProcess {
  pid: number;
  port: number;
  binary: string;
}

export function ensureFerretBinary(cacheDir: string): string {
  const binary = join(cacheDir, `ferretdb-${FERRETDB_VERSION}`, 'ferretdb');
  if (existsSync(binary)) return binary;
  const go = which('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
  if (!go)
    throw new Error(
      'FerretDB must be built but Go is not installed (need `go` on PATH); or set MONGO_URL and REDIS_URL',
    );
  log(`building FerretDB ${FERRETDB_VERSION} from the Go module proxy (about 75 s the first time)…`);
  const info = JSON.parse(
    execFileSync(go, ['mod', 'download', '-json', `${MODULE}@${FERRETDB_VERSION}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  ) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download failed: ${info.Error ?? 'no Dir'}`);
  const work = mkdtempSync(join(tmpdir(), 'bookstage-ferretdb-src-'));
  try {
    const src = join(work, 'src');
    cpSync(info.Dir, src, { recursive: true });
    execFileSync('chmod', ['-R', 'u+w', src]);
    writeFileSync(join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    const out = join(work, 'ferretdb');
    execFileSync(go, ['build', '-o', out, './cmd/ferretdb'], {
      cwd: src,
      stdio: ['ignore', process.stderr, process.stderr],
    });
    mkdirSync(join(cacheDir, `ferretdb-${FERRETDB_VERSION}`), { recursive: true });
    chmodSync(out, 0o755);
    // rename is atomic: a concurrent build by another run cannot leave half a binary.
    renameSync(out, binary);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  log(`FerretDB built: ${binary}`);
  return binary;
}

export async function startFerret(binary: string, baseDir: string, pgPort: number): Promise<FerretProcess> {
  const port = await freePort();
  const state = join(baseDir, 'ferretdb-state');
  mkdirSync(state, { recursive: true });
  const pid = spawnDetached(
    binary,
    [
      '--handler=postgresql',
      // why a pool of 200, not FerretDB's 50: it keeps a connection per matched update of a command until the
      // command ends (shared/storage/bounded-bulk-write.ts); commands of many workers at once must not exhaust it.
      `--postgresql-url=${ferretPostgresUrl(pgPort)}?pool_max_conns=200`,
      `--listen-addr=127.0.0.1:${port}`,
      // The default debug address (127.0.0.1:8088) would collide with a second instance.
      '--debug-addr=127.0.0.1:0',
      '--telemetry=disable',
      `--state-dir=${state}`,
      '--log-level=warn',
    ],
    join(baseDir, 'ferretdb.log'),
  );
  await waitForPort(port, 30_000, 'FerretDB');
  log(`ferretdb ${FERRETDB_VERSION} pid ${pid} on 127.0.0.1:${port}`);
  return { pid, port, binary };
}
