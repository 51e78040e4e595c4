// The server side of the review page without a browser: GET /api/v1/cli/whoami
// (what the page reads to decide which actions to offer) and the static
// routes of api/routes/review.ts. docs/guide/review-page.md.
import { expect } from 'chai';
import { API_ROUTES } from '../../shared/contract/routes.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

describe("the review page's server side", () => {
  it("GET /api/v1/cli/whoami answers the token's org, actor, scopes (sorted), whether it is an agent's and whether the org requires a distinct approver; 401 without a token", async () => {
    const books = new Books();
    const s = await stack();
    await s.load(books.file);
    const token = await s.token(books.orgId, ['staged:read', 'inbox:read', 'staged:approve'], 'bob');
    const me = await call<{ org_id: string; actor: string; scopes: string[] }>('GET', '/api/v1/cli/whoami', { token });
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ ok: true, operation: 'whoami.show' });
    expect(me.body.data).to.deep.equal({
      org_id: books.orgId,
      actor: 'bob',
      scopes: ['inbox:read', 'staged:approve', 'staged:read'],
      agent: false,
      require_distinct_approver: true,
    });
    const anonymous = await call('GET', '/api/v1/cli/whoami');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body.error.code).to.equal('unauthenticated');
  });

  it("serves the page's own assets with their types and the CSP; anything else under /review is an unknown route", async () => {
    const { baseUrl } = await stack();
    const js = await fetch(`${baseUrl}/review/assets/main.js`);
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(js.headers.get('content-security-policy')).to.include("script-src 'self'");
    const css = await fetch(`${baseUrl}/review/assets/review.css`);
    expect(css.headers.get('content-type')).to.equal('text/css; charset=utf-8');
    for (const [method, path] of [
      ['GET', '/review/assets/nothing.js'],
      ['GET', '/review/assets/review.html'],
      ['GET', '/review/assets/..%2Fapi%2Fapp.js'],
      ['POST', '/review'],
    ] as const) {
      const answer = await call(method, path);
      expect(answer.status, `${method} ${path}`).to.equal(404);
      expect(answer.body.error.code, `${method} ${path}`).to.equal('route_not_found');
    }
  });

  it("serves the route table's paths to the page as a module, each operation's path as shared/contract/routes.ts has it", async () => {
    const { baseUrl } = await stack();
    const answer = await fetch(`${baseUrl}/review/assets/route-paths.js`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    const text = await answer.text();
    const table = /export const ROUTE_PATHS = (\{[\s\S]*\});\s*$/.exec(text)?.[1];
    expect(JSON.parse(table ?? 'null')).to.deep.equal(Object.fromEntries(API_ROUTES.map((r) => [r.operation, r.path])));
    expect(text).to.include('"/api/v1/cli/staged-operations/{id}/approve"');
  });
});
