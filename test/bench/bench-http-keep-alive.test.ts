// The bench's HTTP client (bench/lib/http.ts) keeps sockets alive between
// calls, and must let an idle one go before the server closes it: a call sent
// on a socket the server is closing fails with "socket hang up".
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { call } from '../../bench/lib/http.js';

const connections = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => server.getConnections((err, count) => (err ? reject(err) : resolve(count))));

describe("the bench's HTTP client", function () {
  this.timeout(20_000);
  let server: Server;
  let baseUrl: string;

  before(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, auth: req.headers.authorization }));
    });
    // Announced to clients as `Keep-Alive: timeout=3`.
    server.keepAliveTimeout = 3_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reuses one socket for calls in a row', async () => {
    const first = await call(baseUrl, 'tok', 'GET', '/a');
    expect(first.status).to.equal(200);
    expect(first.body).to.deep.equal({ ok: true, auth: 'Bearer tok' });
    await call(baseUrl, 'tok', 'GET', '/b');
    expect(await connections(server)).to.equal(1);
  });

  it('closes an idle socket before the time-out the server announced', async () => {
    await call(baseUrl, 'tok', 'GET', '/c');
    expect(await connections(server)).to.equal(1);
    // The server closes idle sockets at 3 s; the client must have let go a second before.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await connections(server)).to.equal(0);
    expect((await call(baseUrl, 'tok', 'GET', '/d')).status).to.equal(200);
  });
});
