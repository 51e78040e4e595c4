// The fault switch is the worker's environment and nothing else
// (worker/test-faults.ts): no request can turn it on.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../scripts/services/lifecycle.js';
import type { ReconcileData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { RECONCILE, reconcileScenario, workerPids } from './fault-scenario.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('faults: the test fault switch cannot be turned on through the API', () => {
  it('is read only by worker/test-faults.ts from its own environment; nothing under api/, shared/ or cli/ mentions it', () => {
    const all = ['api', 'shared', 'cli', 'worker'].flatMap((d) => sources(join(projectRoot, d)));
    const readers = all
      .filter((f) => /env\s*(\.|\[\s*['"`])BOOKSTAGE_TEST_FAULTS/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(projectRoot, f));
    expect(readers).to.deep.equal(['worker/test-faults.ts']);
    const outside = all
      .filter((f) => !relative(projectRoot, f).startsWith('worker/'))
      .filter((f) => /BOOKSTAGE_TEST_FAULTS|test-faults/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(projectRoot, f));
    expect(outside).to.deep.equal([]);
  });

  it('a staging request naming a fault in its headers stages normally, one naming it in the query is refused as an unknown parameter, and the worker lives on', async () => {
    const sc = await reconcileScenario();
    const [pid] = workerPids();
    expect(pid, 'a running worker').to.be.a('number');
    // Staging calls take only the query parameters they document (dry_run): anything else is 400 before a job exists.
    const inQuery = await call('POST', `${RECONCILE}?BOOKSTAGE_TEST_FAULTS=stage:crash-after-write`, {
      token: sc.who.alice,
      body: sc.body,
      headers: { prefer: 'wait=20' },
    });
    expect(inQuery.status, JSON.stringify(inQuery.body)).to.equal(400);
    expect(inQuery.body.error.code).to.equal('validation_failed');
    const res = await call<ReconcileData>('POST', RECONCILE, {
      token: sc.who.alice,
      body: sc.body,
      headers: {
        'bookstage-test-faults': 'stage:crash-after-write',
        'x-bookstage-test-faults': 'stage:crash-after-read',
        prefer: 'wait=20',
      },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(workerPids()).to.deep.equal([pid]);
  });
});
