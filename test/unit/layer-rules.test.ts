// The layer rules of eslint.config.js (docs/design/architecture.md "Layout and import rules"):
// each check plants one forbidden import in an in-memory copy of a real file
// (ESLint's lintText with that file's path, so the resolver and the cycle
// check see the rest of the tree as it is) and proves the lint fails on it;
// the same file unchanged passes.
import { expect } from 'chai';
import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/unit → the project root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const LAYER_RULES = new Set(['import-x/no-restricted-paths', 'import-x/no-cycle']);

/** The layer-rule findings of `file` (a path from the root) with `planted` prepended to its own text. */
async function layerFindings(file: string, planted: string): Promise<{ ruleId: string | null; message: string }[]> {
  const eslint = new ESLint({ cwd: root });
  const source = readFileSync(join(root, file), 'utf8');
  const [result] = await eslint.lintText(`${planted}${source}`, { filePath: join(root, file) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId !== null && LAYER_RULES.has(m.ruleId))
    .map(({ ruleId, message }) => ({ ruleId, message }));
}

const rules = (findings: { ruleId: string | null }[]): (string | null)[] => findings.map((f) => f.ruleId);

describe('layer rules (eslint.config.js)', function () {
  // Type-aware linting builds the TypeScript programs first.
  this.timeout(300_000);

  it('passes the files of every layer as they are', async () => {
    for (const file of [
      'shared/domain/decision.ts',
      'shared/schemas/whoami.ts',
      'shared/storage/job-results.ts',
      'shared/queue/read-jobs.ts',
      'shared/kinds/registry.ts',
      'shared/kinds/ledger-reversal/wire.ts',
      'shared/kinds/ledger-reversal/schema.ts',
      'shared/kinds/ledger-reversal/plan.ts',
      'shared/kinds/statement-import/schema.ts',
      'shared/schemas/openapi.ts',
      'api/routes/staging.ts',
      'worker/processor.ts',
      'worker/kinds/ledger-reversal/stage.ts',
      'web/api.ts',
    ]) {
      expect(await layerFindings(file, ''), file).to.deep.equal([]);
    }
  });

  it('fails the domain importing storage', async () => {
    const found = await layerFindings(
      'shared/domain/decision.ts',
      "import { connectMongo } from '../storage/mongo.js';\nexport const planted = connectMongo;\n",
    );
    expect(rules(found)).to.deep.equal(['import-x/no-restricted-paths']);
    expect(found[0]?.message).to.include('shared/domain imports nothing but');
  });

  it('fails schemas importing storage', async () => {
    const found = await layerFindings(
      'shared/schemas/whoami.ts',
      "import type { ApiTokenDoc } from '../storage/collections.js';\nexport type Planted = ApiTokenDoc;\n",
    );
    expect(rules(found)).to.deep.equal(['import-x/no-restricted-paths']);
  });

  it('fails storage importing the queue', async () => {
    const found = await layerFindings(
      'shared/storage/job-results.ts',
      "import { STAGE_QUEUE } from '../queue/stage-jobs.js';\nexport const planted = STAGE_QUEUE;\n",
    );
    expect(rules(found)).to.deep.equal(['import-x/no-restricted-paths']);
  });

  it('fails the API importing the worker, and the worker importing the API', async () => {
    const api = await layerFindings(
      'api/routes/staging.ts',
      "import { createStageProcessor } from '../../worker/processor.js';\nexport const planted = createStageProcessor;\n",
    );
    expect(rules(api)).to.deep.equal(['import-x/no-restricted-paths']);
    const worker = await layerFindings(
      'worker/processor.ts',
      "import { send } from '../api/outcome.js';\nexport const planted = send;\n",
    );
    expect(rules(worker)).to.deep.equal(['import-x/no-restricted-paths']);
  });

  it("fails a kind's wire module importing storage or the worker", async () => {
    const storage = await layerFindings(
      'shared/kinds/ledger-reversal/wire.ts',
      "import { findStagedOperation } from '../../storage/staged-operations.js';\nexport const planted = findStagedOperation;\n",
    );
    expect(rules(storage)).to.deep.equal(['import-x/no-restricted-paths']);
    expect(storage[0]?.message).to.include('shared/kinds holds');
    const worker = await layerFindings(
      'shared/kinds/registry.ts',
      "import { crashIf } from '../../worker/test-faults.js';\nexport const planted = crashIf;\n",
    );
    expect(rules(worker)).to.deep.equal(['import-x/no-restricted-paths']);
  });

  it("fails a kind's pure parts importing storage, the queue, the worker or the logger, and its worker parts the API", async () => {
    const storage = await layerFindings(
      'shared/kinds/ledger-reversal/plan.ts',
      "import { findStagedOperation } from '../../storage/staged-operations.js';\nexport const planted = findStagedOperation;\n",
    );
    expect(rules(storage)).to.deep.equal(['import-x/no-restricted-paths']);
    expect(storage[0]?.message).to.include('shared/kinds holds');
    const queue = await layerFindings(
      'shared/kinds/statement-import/journal.ts',
      "import { STAGE_QUEUE } from '../../queue/stage-jobs.js';\nexport const planted = STAGE_QUEUE;\n",
    );
    expect(rules(queue)).to.deep.equal(['import-x/no-restricted-paths']);
    const worker = await layerFindings(
      'shared/kinds/bank-reconcile/plan.ts',
      "import { crashIf } from '../../../worker/test-faults.js';\nexport const planted = crashIf;\n",
    );
    expect(rules(worker)).to.deep.equal(['import-x/no-restricted-paths']);
    // Only what the zone lists: not the logger either (a kind's plan is pure).
    const logger = await layerFindings(
      'shared/kinds/ledger-reversal/plan.ts',
      "import { createLogger } from '../../logger.js';\nexport const planted = createLogger;\n",
    );
    expect(rules(logger)).to.deep.equal(['import-x/no-restricted-paths']);
    const api = await layerFindings(
      'worker/kinds/ledger-reversal/stage.ts',
      "import { send } from '../../../api/outcome.js';\nexport const planted = send;\n",
    );
    expect(rules(api)).to.deep.equal(['import-x/no-restricted-paths']);
  });

  it("fails a kind's schema importing more than a schema may", async () => {
    const found = await layerFindings(
      'shared/kinds/ledger-reversal/schema.ts',
      "import { KEY } from '../mcp-text.js';\nexport const planted = KEY;\n",
    );
    expect(rules(found)).to.deep.equal(['import-x/no-restricted-paths']);
    expect(found[0]?.message).to.include("A kind's schema.ts is a schema");
  });

  it('fails the domain importing the kinds registry', async () => {
    const found = await layerFindings(
      'shared/domain/decision.ts',
      "import { KINDS } from '../kinds/registry.js';\nexport const planted = KINDS;\n",
    );
    // The registry reaches decision.ts through the kinds' planners, so the planted import closes a cycle as well.
    expect(rules(found)).to.include('import-x/no-restricted-paths');
  });

  it('fails the review page importing anything but the contract', async () => {
    const found = await layerFindings(
      'web/api.ts',
      "import type { StagedOperationDoc } from '../shared/storage/collections.js';\nexport type Planted = StagedOperationDoc;\n",
    );
    expect(rules(found)).to.deep.equal(['import-x/no-restricted-paths']);
  });

  it('fails an import cycle', async () => {
    // pending-gate.ts imports decision.ts; decision.ts importing pending-gate.ts closes a loop (type-only imports are no cycle).
    const found = await layerFindings(
      'shared/domain/decision.ts',
      "import { pendingDecision } from './pending-gate.js';\nexport const planted = pendingDecision;\n",
    );
    expect(rules(found)).to.deep.equal(['import-x/no-cycle']);
  });
});
