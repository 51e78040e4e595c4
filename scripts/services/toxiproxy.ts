// Toxiproxy (Shopify), the TCP proxy the network-fault tests put between the
// processes and Redis/MongoDB (docs/operating/reliability.md "Network faults"). Built
// from the Go module proxy once, into the ignored cache, like FerretDB
// (scripts/services/ferretdb.ts); unlike FerretDB, `go install` works for it.
// Its server binary is the module's cmd/server package (there is no
// cmd/toxiproxy-server in v2). The small client below speaks its HTTP API.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, spawnDetached, stopProcess, which } from './processes.js';
import { freePort, waitForPort } from './ports.js';

export const TOXIPROXY_VERSION = 'v2.12.0';
const PACKAGE = 'github.com/Shopify/toxiproxy/v2/cmd/server';

export function ensureToxiproxyBinary(cacheDir: string): string {
  const binary = join(cacheDir, `toxiproxy-${TOXIPROXY_VERSION}`, 'toxiproxy-server');
  if (existsSync(binary)) return binary;
  const go = which('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
  if (!go) throw new Error('toxiproxy must be built but Go is not installed (need `go` on PATH)');
  log(`building toxiproxy ${TOXIPROXY_VERSION} from the Go module proxy (about 30 s the first time)…`);
  const work = mkdtempSync(join(tmpdir(), 'bookstage-toxiproxy-'));
  try {
    execFileSync(go, ['install', `${PACKAGE}@${TOXIPROXY_VERSION}`], {
      env: { ...process.env, GOBIN: work },
      stdio: ['ignore', process.stderr, process.stderr],
    });
    mkdirSync(join(cacheDir, `toxiproxy-${TOXIPROXY_VERSION}`), { recursive: true });
    // rename is atomic: a concurrent build by another run cannot leave half a binary.
    renameSync(join(work, 'server'), binary);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  log(`toxiproxy built: ${binary}`);
  return binary;
}

export type ToxicType = 'latency' | 'reset_peer' | 'timeout' | 'bandwidth' | 'slow_close' | 'limit_data';

export interface Toxic {
  name: string;
  type: ToxicType;
  stream?: 'upstream' | 'downstream';
  toxicity?: number;
  attributes: Record<string, number>;
}

export interface Toxiproxy {
  pid: number;
  /** Port of its HTTP API. */
  apiPort: number;
  /** A proxy listening on a free loopback port, forwarding to `upstreamPort`; returns its port. */
  proxy(name: string, upstreamPort: number): Promise<number>;
  addToxic(proxy: string, toxic: Toxic): Promise<void>;
  removeToxic(proxy: string, toxic: string): Promise<void>;
  /** A disabled proxy closes its connections and refuses new ones: a dropped link. */
  setEnabled(proxy: string, enabled: boolean): Promise<void>;
  stop(): Promise<void>;
}

export async function startToxiproxy(binary: string, logFile: string): Promise<Toxiproxy> {
  const apiPort = await freePort();
  const pid = spawnDetached(binary, ['-host', '127.0.0.1', '-port', String(apiPort)], logFile);
  await waitForPort(apiPort, 15_000, 'toxiproxy');
  const api = async (method: string, path: string, body?: unknown): Promise<void> => {
    const res = await fetch(`http://127.0.0.1:${apiPort}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`toxiproxy ${method} ${path}: ${res.status} ${await res.text()}`);
  };
  return {
    pid,
    apiPort,
    async proxy(name, upstreamPort) {
      const port = await freePort();
      await api('POST', '/proxies', {
        name,
        listen: `127.0.0.1:${port}`,
        upstream: `127.0.0.1:${upstreamPort}`,
        enabled: true,
      });
      return port;
    },
    addToxic: (proxy, toxic) =>
      api('POST', `/proxies/${proxy}/toxics`, { stream: 'downstream', toxicity: 1, ...toxic }),
    removeToxic: (proxy, toxic) => api('DELETE', `/proxies/${proxy}/toxics/${toxic}`),
    setEnabled: (proxy, enabled) => api('POST', `/proxies/${proxy}`, { enabled }),
    stop: () => stopProcess(pid, 'toxiproxy'),
  };
}
