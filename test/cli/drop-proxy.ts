// A loopback TCP proxy that loses the first answer: it forwards the first
// connection's request to the API, then closes that connection as soon as
// the answer starts, so the client sees a dropped connection although the
// server did the work. Later connections pass through.
import { createServer, connect, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface DropProxy {
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}

export async function startDropProxy(target: URL): Promise<DropProxy> {
  let count = 0;
  const server: Server = createServer((client) => {
    count += 1;
    const first = count === 1;
    const upstream = connect(Number(target.port), target.hostname);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    if (first) {
      upstream.once('data', () => {
        client.destroy();
        upstream.destroy();
      });
    } else {
      upstream.pipe(client);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
      }),
  };
}
