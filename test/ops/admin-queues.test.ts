// bull-board at /admin/queues (docs/reference/http-api.md §12.3): only for a token with
// the `admin` scope; to anyone else it does not exist.
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';
import { request } from './fixtures.js';

describe('GET /admin/queues', () => {
  it('is a 404 route_not_found, the same as an unknown path, without a token, with a bad one, or with one lacking the admin scope', async () => {
    const s = await stack();
    const books = new Books();
    await s.load(books.file);
    const everyScopeButAdmin = await s.token(books.orgId, [
      'bank:stage',
      'ledger:stage',
      'inbox:read',
      'staged:read',
      'staged:approve',
      'staged:apply',
    ]);
    for (const token of [undefined, 'bst_not-a-token', everyScopeButAdmin]) {
      for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
        const reply = await request(s.baseUrl, 'GET', path, { token });
        expect(reply.status, path).to.equal(404);
        expect(reply.body.error, path).to.deep.include({ code: 'route_not_found', details: { method: 'GET', path } });
        expect(reply.headers.get('ratelimit-limit'), path).to.equal(null);
      }
    }
  });

  it('is the same 404 route_not_found with a malformed bookstage_admin cookie (bad percent-encoding), never a 500', async () => {
    const s = await stack();
    for (const value of ['%', '%zz', 'bst_%E2%80', '%%%']) {
      for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
        const reply = await request(s.baseUrl, 'GET', path, {
          headers: { cookie: `other=1; bookstage_admin=${value}` },
        });
        expect(reply.status, `${path} ${value}`).to.equal(404);
        expect(reply.body.error, `${path} ${value}`).to.deep.include({
          code: 'route_not_found',
          details: { method: 'GET', path },
        });
      }
    }
  });

  it('serves the board to an admin token (bearer or cookie), its scripts and styles from this server, and both queues', async () => {
    const s = await stack();
    const books = new Books();
    await s.load(books.file);
    const token = await s.token(books.orgId, ['admin'], 'operator');
    const page = await fetch(`${s.baseUrl}/admin/queues`, { headers: { authorization: `Bearer ${token}` } });
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('content-security-policy')).to.match(/default-src 'self'/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.filter((a) => a.endsWith('.js')).length).to.be.greaterThan(0);
    expect(assets.filter((a) => a.endsWith('.css')).length).to.be.greaterThan(0);
    // A browser sends the cookie, not a bearer header.
    const cookie = { cookie: `bookstage_admin=${encodeURIComponent(token)}` };
    for (const asset of assets) {
      const res = await fetch(`${s.baseUrl}/admin/queues/${asset}`, { headers: cookie });
      expect(res.status, asset).to.equal(200);
      const type = asset.endsWith('.js') ? /javascript/ : asset.endsWith('.css') ? /css/ : /^image\//;
      expect(res.headers.get('content-type'), asset).to.match(type);
      await res.arrayBuffer();
    }
    const api = await request(s.baseUrl, 'GET', '/admin/queues/api/queues', { headers: cookie });
    expect(api.status).to.equal(200);
    const names = (api.body.queues as Array<{ name: string; readOnlyMode: boolean }>).map((q) => [
      q.name,
      q.readOnlyMode,
    ]);
    expect(names.sort()).to.deep.equal([
      ['read', true],
      ['stage', true],
    ]);
  });
});
