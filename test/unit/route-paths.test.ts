// Route paths are written once, in shared/contract/route-paths.ts, which the
// route table and the kinds' staging routes take them from: pathOf fills them, and the CLI, the bench and the review page build their
// URLs with it (the page through the build's dist/web/route-paths.js,
// docs/guide/review-page.md "How the page finds the API's paths").
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pathOf, ROUTE_PATHS, type RouteOperation } from '../../shared/contract/route-paths.js';
import { API_ROUTES } from '../../shared/contract/routes.js';
import { sourceFiles } from '../../scripts/docs-tables/links.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The lines of `text` outside comments that hold an API path in a string. */
function pathLiterals(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  return code.split('\n').filter((line) => /['"`]\/(api\/v1|healthz|readyz)\b/.test(line));
}

describe('route paths come from the route table', () => {
  it("fills an operation's path parameters, URI-encoded", () => {
    expect(pathOf('staged_operations.list')).to.equal('/api/v1/cli/staged-operations');
    expect(pathOf('staged_operations.approve', { id: 'stg_1' })).to.equal(
      '/api/v1/cli/staged-operations/stg_1/approve',
    );
    expect(pathOf('ledger_reversal.stage', { entry_id: 'le 1/2' })).to.equal(
      '/api/v1/cli/ledger/entries/le%201%2F2/reverse/stage',
    );
  });

  it('refuses an unknown operation and a missing parameter', () => {
    // tsc refuses an unknown operation; a caller in plain JS gets the error.
    expect(() => pathOf('staged_operations.nope' as RouteOperation)).to.throw(
      'no route for operation staged_operations.nope',
    );
    expect(() => pathOf('jobs.show')).to.throw('route jobs.show needs the path parameter job_id');
  });

  it('has one path for each route of the table, and none for a route it lacks', () => {
    expect(API_ROUTES.map((r) => [r.operation, r.path])).to.deep.equal(Object.entries(ROUTE_PATHS));
  });

  it('no code of the CLI, the bench or the page writes an API path itself', () => {
    const found = sourceFiles(root, ['cli', 'bench', 'web']).flatMap((file) =>
      pathLiterals(readFileSync(join(root, file), 'utf8')).map((line) => `${file}: ${line.trim()}`),
    );
    expect(found).to.deep.equal([]);
  });

  it('finds a path in a string, not in a comment', () => {
    const text = [
      "const a = '/api/v1/cli/jobs';",
      '// GET /api/v1/cli/jobs/{id}',
      '/**',
      ' * `/api/v1/cli/whoami`',
      ' */',
      'const b = `/healthz`;',
    ].join('\n');
    expect(pathLiterals(text)).to.deep.equal(["const a = '/api/v1/cli/jobs';", 'const b = `/healthz`;']);
  });
});
