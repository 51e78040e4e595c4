// Every way a worker is started passes worker/node-flags.ts's V8 flags
// (docs/operating/scaling.md "Worker replicas"): the npm script, the
// Dockerfile's note, the deploy guide, and the test stack's own worker,
// read back from its process.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.js';
import { stack } from '../helpers/stack.js';
import { workerPids } from '../faults/fault-scenario.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const command = `node ${WORKER_NODE_FLAGS.join(' ')} dist/worker/main.js`;

describe("worker processes start with the worker's V8 flags", () => {
  it('names them in the npm script, the Dockerfile and the deploy guide', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['start:worker']).to.equal(command);
    expect(readFileSync(join(root, 'Dockerfile'), 'utf8')).to.include(command);
    expect(readFileSync(join(root, 'docs', 'operating', 'deploy.md'), 'utf8')).to.include(`\`${command}\``);
  });

  it("the test stack's worker runs with them", async function () {
    this.timeout(60_000);
    const s = await stack();
    await s.startWorker();
    const pids = workerPids();
    expect(pids, 'a worker process').to.have.length.greaterThan(0);
    for (const pid of pids) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(argv.slice(1, 1 + WORKER_NODE_FLAGS.length), `worker ${pid}: ${argv.join(' ')}`).to.deep.equal([
        ...WORKER_NODE_FLAGS,
      ]);
    }
  });
});
