import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createApp } from '../../api/app.js';
import { OPENAPI_FILE, openApiFileText } from '../../scripts/openapi-file.js';
import { createLogger } from '../../shared/logger.js';
import { inboxDuplicatesQuerySchema } from '../../shared/schemas/inbox-duplicates.js';
import { linkRepairStageRequestSchema } from '../../shared/kinds/ledger-link-repair/schema.js';
import { buildOpenApiDocument } from '../../shared/schemas/openapi.js';
import { reconcileStageRequestSchema } from '../../shared/kinds/bank-reconcile/schema.js';
import { reversalStageRequestSchema } from '../../shared/kinds/ledger-reversal/schema.js';
import {
  approveBodySchema,
  rejectBodySchema,
  stagedListQuerySchema,
  stagedOperationSchema,
} from '../../shared/schemas/staged-operations.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

type Doc = {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; schema: unknown }> }>>;
  components: { schemas: Record<string, unknown> };
};

/** Every method + path the Express app routes, in OpenAPI form (`:id` → `{id}`). */
async function servedRoutes(): Promise<string[]> {
  const s = await stack();
  const app = createApp({
    db: s.db,
    logger: createLogger('api', 'silent'),
    queue: {} as never,
    queueEvents: {} as never,
    stageWaitMs: 1,
    stageWaitMaxMs: 1,
    jobOptions: {} as never,
  });
  const out: string[] = [];
  type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
  const walk = (layers: Layer[]): void => {
    for (const layer of layers) {
      if (layer.route)
        for (const m of Object.keys(layer.route.methods))
          out.push(`${m.toUpperCase()} ${layer.route.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return out.sort();
}

function documentedRoutes(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

const jsonCopy = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument() as unknown as Doc;

  it('is committed up to date in docs/openapi.json (run `npm run openapi` after changing a schema or route)', () => {
    expect(
      readFileSync(OPENAPI_FILE, 'utf8') === openApiFileText(),
      'docs/openapi.json is stale: run `npm run openapi`',
    ).to.equal(true);
  });

  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(jsonCopy(doc) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  it('lists exactly the routes the app serves', async () => {
    expect(documentedRoutes(doc)).to.deep.equal(await servedRoutes());
  });

  it('serves every documented path: none of them answers route_not_found', async () => {
    for (const route of documentedRoutes(doc)) {
      const [method, path] = route.split(' ') as [string, string];
      const concrete = path.replace('{entry_id}', 'le_x').replace('{job_id}', 'job_x').replace('{id}', 'stg_x');
      const answer = await call(method, concrete);
      expect(answer.body?.error?.code ?? null, route).to.not.equal('route_not_found');
      expect(answer.status, route).to.not.equal(404);
    }
  });

  it('is served at GET /api/v1/openapi.json without a token, equal to the built document', async () => {
    const answer = await call('GET', '/api/v1/openapi.json');
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^application\/json/);
    expect(answer.headers.get('x-request-id')).to.be.a('string');
    expect(answer.body).to.deep.equal(jsonCopy(doc));
  });

  it('uses the very schemas the API validates with (one source of truth)', () => {
    expect(doc.components.schemas.ReconcileStageRequest).to.deep.equal(jsonCopy(reconcileStageRequestSchema));
    expect(doc.components.schemas.LinkRepairStageRequest).to.deep.equal(jsonCopy(linkRepairStageRequestSchema));
    expect(doc.components.schemas.ReversalStageRequest).to.deep.equal(jsonCopy(reversalStageRequestSchema));
    const query = doc.paths['/api/v1/cli/bookkeeping/inbox/duplicates']!.get!.parameters!.filter(
      (p) => p.in === 'query',
    );
    expect(query.map((p) => p.name)).to.deep.equal(Object.keys(inboxDuplicatesQuerySchema.properties));
    expect(query.find((p) => p.name === 'limit')!.schema).to.deep.equal({ type: 'integer', minimum: 1, maximum: 200 });
    expect(doc.components.schemas.ApproveRequest).to.deep.equal(jsonCopy(approveBodySchema));
    expect(doc.components.schemas.RejectRequest).to.deep.equal(jsonCopy(rejectBodySchema));
    expect(doc.components.schemas.StagedOperation).to.deep.equal(jsonCopy(stagedOperationSchema));
    const stagedQuery = doc.paths['/api/v1/cli/staged-operations']!.get!.parameters!.filter((p) => p.in === 'query');
    expect(stagedQuery.map((p) => p.name)).to.deep.equal(Object.keys(stagedListQuerySchema.properties));
  });

  it('documents the headers: request ids, idempotency, Prefer, and what answers carry', () => {
    const reverse = doc.paths['/api/v1/cli/ledger/entries/{entry_id}/reverse/stage']!.post as unknown as {
      parameters: Array<{ name: string; in: string }>;
      responses: Record<string, { headers: Record<string, unknown> }>;
    };
    expect(reverse.parameters.filter((p) => p.in === 'header').map((p) => p.name)).to.deep.equal([
      'X-Request-Id',
      'Idempotency-Key',
      'Prefer',
    ]);
    expect(Object.keys(reverse.responses['201']!.headers).sort()).to.deep.equal([
      'Idempotent-Replayed',
      'Location',
      'Preference-Applied',
      'X-Request-Id',
    ]);
    expect(Object.keys(reverse.responses['202']!.headers).sort()).to.deep.equal([
      'Location',
      'Preference-Applied',
      'Retry-After',
      'X-Request-Id',
    ]);
    expect(Object.keys(reverse.responses).sort()).to.deep.equal([
      '200',
      '201',
      '202',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
  });
});
