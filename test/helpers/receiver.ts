// A real local HTTP receiver for webhook tests: records every request (raw
// body and headers) and answers what the test's handler says (200 by default).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The status (or status and headers, e.g. a redirect's location) to answer for the n-th request (1-based); 200 unless set. */
  answer: (n: number, req: Received) => number | { status: number; headers: Record<string, string> };
  /** Stop listening (a receiver that is down: connections are refused). */
  down(): Promise<void>;
  /** Listen again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function receiver(): Promise<Receiver> {
  let server: Server | null = null;
  const self: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer: () => 200,
    async down() {
      const s = server;
      server = null;
      if (s)
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        });
    },
    async up() {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
          self.received.push(r);
          const answer = self.answer(self.received.length, r);
          const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
          res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('ok');
        });
      });
      const s = server;
      await new Promise<void>((resolve) => s.listen(self.port, '127.0.0.1', () => resolve()));
      self.port = (s.address() as AddressInfo).port;
      self.url = `http://127.0.0.1:${self.port}/hook`;
    },
    async close() {
      await self.down();
    },
  };
  await self.up();
  return self;
}

export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
