// A request as a hostile client sends it: any method, path, headers and raw
// body bytes (no JSON encoding, no content type added), and the answer with
// its envelope parsed when there is one.
import { request } from 'node:http';
import { stack } from '../helpers/stack.js';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, or null when it is not JSON. */
  json: Record<string, unknown> | null;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** node:http rather than fetch: fetch normalises paths (`..`), refuses some header bytes and adds a content type. */
export async function rawRequest(req: RawRequest): Promise<RawAnswer> {
  const url = new URL((await stack()).baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    const r = request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> | null = null;
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    r.on('error', reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}
