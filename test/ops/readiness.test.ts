// GET /readyz (docs/reference/http-api.md §12.1) on an API with a Redis of its own, which
// the test stops and starts while MongoDB stays up.
import { expect } from 'chai';
import { apiWithOwnRedis, type OwnRedisApi } from '../helpers/own-redis-api.js';
import { request } from './fixtures.js';

describe('GET /readyz', function () {
  this.timeout(60_000);
  let api: OwnRedisApi;
  let baseUrl: string;
  before(async () => {
    api = await apiWithOwnRedis(`bst-ops-ready-${process.pid}`);
    baseUrl = `http://127.0.0.1:${api.port}`;
  });
  after(async () => {
    await api.close();
  });

  it('answers 200 with both checks up, 503 naming Redis while Redis is stopped, and 200 again once it is back', async () => {
    const up = await request(baseUrl, 'GET', '/readyz');
    expect(up.status).to.equal(200);
    expect(up.body).to.deep.equal({ ok: true, checks: { Redis: 'up', MongoDB: 'up' } });

    await api.stopRedis();
    const down = await request(baseUrl, 'GET', '/readyz');
    expect(down.status).to.equal(503);
    expect(down.body).to.include({ ok: false, operation: 'readiness', request_id: down.headers.get('x-request-id') });
    expect(down.body.error).to.include({ code: 'dependency_unavailable' });
    expect(down.body.error!.details).to.deep.equal({ dependency: 'Redis', down: ['Redis'] });
    expect(down.headers.get('retry-after')).to.equal('1');
    // Liveness is not readiness: the process is still up.
    expect((await request(baseUrl, 'GET', '/healthz')).status).to.equal(200);

    await api.startRedis();
    let again = await request(baseUrl, 'GET', '/readyz');
    for (let i = 0; i < 100 && again.status !== 200; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      again = await request(baseUrl, 'GET', '/readyz');
    }
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal({ ok: true, checks: { Redis: 'up', MongoDB: 'up' } });
  });
});
