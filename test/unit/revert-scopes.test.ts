// The review page offers "Stage a revert" for exactly the kinds the worker can
// revert (docs/design/staged-lifecycle.md "Reverts"), to a token holding the
// scope that stages the reverted kind (its staging route's). The page's code
// builds against the DOM, so its map is read as the source states it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { KINDS, STAGED_KINDS } from '../../shared/kinds/registry.js';
import { WORKER_KINDS } from '../../worker/kinds.js';

// dist/test/unit → the project root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** web/kinds.ts REVERT_SCOPES, kind → scope. */
function pageRevertScopes(): Record<string, string> {
  const source = readFileSync(join(root, 'web', 'kinds.ts'), 'utf8');
  const block = /export const REVERT_SCOPES[^=]*= \{([^}]*)\};/.exec(source);
  expect(block, 'REVERT_SCOPES in web/kinds.ts').to.not.equal(null);
  return Object.fromEntries([...block![1]!.matchAll(/(\w+): '([\w:]+)'/g)].map((m) => [m[1]!, m[2]!]));
}

describe('the page’s revert scopes', () => {
  it('name every kind with a worker revert hook, each with its staging route’s scope, and no other', () => {
    const revertible = STAGED_KINDS.filter((kind) => WORKER_KINDS[kind].revert !== undefined);
    const scopes = pageRevertScopes();
    expect(Object.keys(scopes).sort()).to.deep.equal([...revertible].sort());
    for (const kind of revertible) expect(scopes[kind], kind).to.equal(KINDS[kind].route.auth?.scope);
  });
});
