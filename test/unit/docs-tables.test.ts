// The tables in the docs are the code's: the error codes of shared/errors.ts
// and the variables of shared/config.ts, as docs/reference/error-codes.md
// and docs/reference/configuration.md show them. `npm run docs:tables` rewrites them; these tests fail when a
// document and the code differ. The endpoint table of docs/reference/http-api.md
// ("Walk-through by example") is written by hand, but must list every route of
// shared/contract/routes.ts with its scope.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARIABLES, loadConfig, type Config } from '../../shared/config.js';
import { API_ROUTES, type RouteContract } from '../../shared/contract/routes.js';
import { ERROR_TABLE } from '../../shared/errors.js';
import {
  DOCUMENT_BLOCKS,
  readBlock,
  renderBlock,
  renderErrorTable,
  withFreshBlocks,
  type BlockName,
} from '../../scripts/docs-tables/render.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** Rows of a Markdown table as trimmed cells, header and rule dropped. */
function rows(table: string): string[][] {
  return table
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

/** The endpoint table of a text: the first table whose header starts `| endpoint |`, as rows of cells. */
function endpointTable(text: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| endpoint |'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return rows(lines.slice(start, end === -1 ? undefined : end).join('\n'));
}

/** How the endpoint table must show a route's scope (docs/reference/http-api.md §3). */
function scopeCell(route: RouteContract): string {
  if (route.auth === null) return 'none';
  return route.auth.scope === null ? 'any token' : `\`${route.auth.scope}\``;
}

/** The routes an endpoint table leaves out or shows with another scope, as "METHOD path: why". */
function endpointTableProblems(table: string[][], routes: readonly RouteContract[]): string[] {
  const byEndpoint = new Map(table.map((row) => [row[0]!, row]));
  return routes.flatMap((route) => {
    const endpoint = `\`${route.method.toUpperCase()} ${route.path}\``;
    const row = byEndpoint.get(endpoint);
    if (!row) return [`${endpoint}: not in the table`];
    return row[1] === scopeCell(route) ? [] : [`${endpoint}: scope ${row[1]}, the route's is ${scopeCell(route)}`];
  });
}

describe("the docs' tables are the code's (npm run docs:tables)", () => {
  for (const [path, blocks] of Object.entries(DOCUMENT_BLOCKS)) {
    for (const name of blocks) {
      it(`${path}: the ${name} table is as the code renders it`, () => {
        const block = readBlock(read(path), name);
        expect(block, `${path} has no generated ${name} block`).to.not.equal(null);
        expect(block).to.equal(renderBlock(name));
      });
    }
  }

  for (const path of ['docs/reference/error-codes.md']) {
    it(`${path}: the error-code table lists every code of shared/errors.ts with its status and retryable flag, and no other`, () => {
      const listed = rows(readBlock(read(path), 'error-codes') ?? '').map(([code, status, retryable]) => [
        code,
        status,
        retryable,
      ]);
      const expected = Object.entries(ERROR_TABLE).map(([code, spec]) => [
        `\`${code}\``,
        String(spec.status),
        spec.retryable ? 'yes' : 'no',
      ]);
      expect(listed).to.have.deep.members(expected);
      expect(listed).to.have.length(Object.keys(ERROR_TABLE).length);
    });
  }

  it('docs/reference/configuration.md: the configuration table names every declared variable with the default loadConfig applies', () => {
    const listed = rows(readBlock(read('docs/reference/configuration.md'), 'config') ?? '');
    expect(listed.map((r) => r[0])).to.deep.equal(Object.values(CONFIG_VARIABLES).map((v) => `\`${v.env}\``));
    const applied = loadConfig({ MONGO_URL: 'mongodb://127.0.0.1:27017/books', REDIS_URL: 'redis://127.0.0.1:6379' });
    for (const [field, variable] of Object.entries(CONFIG_VARIABLES)) {
      const shown = listed.find((r) => r[0] === `\`${variable.env}\``)![2];
      const d = variable.default;
      if ('value' in d) {
        expect(shown, variable.env).to.equal(`\`${d.value}\``);
        expect(applied[field as keyof Config], variable.env).to.equal(d.value);
      } else if ('required' in d) {
        expect(shown, variable.env).to.equal('required');
        expect(() => loadConfig({}), variable.env).to.throw(new RegExp(`${variable.env} is not set`));
      } else if ('requiredInProduction' in variable) {
        expect(shown, variable.env).to.equal(`required when \`NODE_ENV=production\`; else ${d.derived.doc}`);
        expect(
          () =>
            loadConfig(
              {
                MONGO_URL: 'mongodb://127.0.0.1:27017/books',
                REDIS_URL: 'redis://127.0.0.1:6379',
                NODE_ENV: 'production',
              },
              'api',
            ),
          variable.env,
        ).to.throw(new RegExp(`${variable.env} is not set: required when NODE_ENV=production`));
      } else {
        expect(shown, variable.env).to.equal(d.derived.doc);
      }
    }
  });

  it('docs/reference/http-api.md: the endpoint table lists every route of shared/contract/routes.ts with its scope, each with a purpose and a link', () => {
    const table = endpointTable(read('docs/reference/http-api.md'));
    expect(table.length).to.be.at.least(API_ROUTES.length);
    expect(endpointTableProblems(table, API_ROUTES)).to.deep.equal([]);
    for (const row of table) {
      expect(row, row[0]).to.have.length(4);
      expect(row[2], `${row[0]} purpose`).to.not.equal('');
      expect(row[3], `${row[0]} link`).to.match(/\]\([^)]+\)/);
    }
  });

  it('notices a route the endpoint table leaves out, or shows with another scope', () => {
    const table = endpointTable(read('docs/reference/http-api.md'));
    const events = API_ROUTES.find((r) => r.path === '/api/v1/cli/events')!;
    const without = table.filter((row) => row[0] !== '`GET /api/v1/cli/events`');
    expect(endpointTableProblems(without, API_ROUTES)).to.deep.equal(['`GET /api/v1/cli/events`: not in the table']);
    expect(endpointTableProblems(table, [{ ...events, auth: { scope: 'books:read' } }])).to.deep.equal([
      "`GET /api/v1/cli/events`: scope `events:read`, the route's is `books:read`",
    ]);
    expect(endpointTableProblems(table, [{ ...events, auth: null }])).to.deep.equal([
      "`GET /api/v1/cli/events`: scope `events:read`, the route's is none",
    ]);
  });

  it('notices a table that differs from the code', () => {
    const text = withFreshBlocks(read('docs/reference/error-codes.md'), ['error-codes']);
    const changed = text.replace('| `forbidden` | 403 | no |', '| `forbidden` | 404 | no |');
    expect(changed).to.not.equal(text);
    expect(withFreshBlocks(changed, ['error-codes'])).to.equal(text);
  });

  it('refuses to render a code that has no description, or a description without a code', () => {
    expect(() => renderErrorTable({ ...ERROR_TABLE, brand_new: { status: 418, retryable: false } })).to.throw(
      /without a description.*brand_new/,
    );
    expect(() => renderErrorTable({ forbidden: ERROR_TABLE.forbidden })).to.throw(/does not have: validation_failed/);
  });

  it('refuses a document whose generated block is gone', () => {
    const blocks: BlockName[] = ['config'];
    expect(() => withFreshBlocks('# no tables here\n', blocks)).to.throw(/no generated block "config"/);
  });
});
