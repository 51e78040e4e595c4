// The event feed and webhook endpoints as tests use them (docs/reference/webhooks.md).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { call, type Answer } from './http.js';
import { waitUntil, type Receiver } from './receiver.js';
import { stack } from './stack.js';

export interface FeedEvent {
  id: string;
  type: string;
  sequence: number;
  created_at: string;
  data: { staged_operation: Record<string, unknown> & { staged_operation_id: string; status: string } };
}
export interface Endpoint {
  id: string;
  secret: string;
  token: string;
}

export const ENDPOINTS = '/api/v1/cli/webhook-endpoints';

/** A webhook endpoint of the org to `url`, and a token that may read its feed and manage its endpoints. */
export async function endpoint(orgId: string, url: string, eventTypes?: string[]): Promise<Endpoint> {
  const token = await (await stack()).token(orgId, ['webhooks:manage', 'events:read'], 'ops');
  const created = await call<{ id: string; secret: string }>('POST', ENDPOINTS, {
    token,
    body: { url, ...(eventTypes ? { event_types: eventTypes } : {}), description: 'test receiver' },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return { id: created.body.data.id, secret: created.body.data.secret, token };
}

export const bodies = (r: Receiver): FeedEvent[] => r.received.map((x) => JSON.parse(x.body) as FeedEvent);

/** Every event of the feed (of one type, if given), paging to the end `limit` at a time; no page may hold more. */
export async function feed(token: string, type?: string, limit = 100): Promise<FeedEvent[]> {
  const out: FeedEvent[] = [];
  let after: string | null = null;
  for (;;) {
    const query = [`limit=${limit}`, ...(type ? [`type=${type}`] : []), ...(after ? [`after=${after}`] : [])].join('&');
    const page: Answer<{ items: FeedEvent[]; next_cursor: string }> = await call<{
      items: FeedEvent[];
      next_cursor: string;
    }>('GET', `/api/v1/cli/events?${query}`, { token });
    expect(page.status, JSON.stringify(page.body)).to.equal(200);
    expect(page.body.data.items.length, query).to.be.at.most(limit);
    out.push(...page.body.data.items);
    if (page.body.data.items.length === 0) return out;
    after = page.body.data.next_cursor;
  }
}

/**
 * The feed's events of one operation once it shows `count` of them (an event
 * shows 2 s after its transition, docs/reference/webhooks.md "Written with
 * the transition (the outbox)"); the test then says what they must be.
 */
export async function eventsOf(token: string, operationId: string, count: number): Promise<FeedEvent[]> {
  let events: FeedEvent[] = [];
  await waitUntil(
    `${count} events of ${operationId} in the feed`,
    async () =>
      (events = (await feed(token)).filter((e) => e.data.staged_operation.staged_operation_id === operationId))
        .length >= count,
  );
  return events;
}

export type Verify = (secret: string, rawBody: string, header: string, toleranceS?: number) => boolean;

/** This file runs as dist/test/helpers/events.js; the docs are in the repository's docs/. */
const WEBHOOKS_DOC = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'docs',
  'reference',
  'webhooks.md',
);

/**
 * The receiver's `verify` exactly as docs/reference/webhooks.md shows it: the
 * code block between its `verify-snippet` markers, loaded as a module, so the
 * test runs what a reader copies and the two cannot drift apart.
 */
export async function documentedVerify(): Promise<Verify> {
  const doc = readFileSync(WEBHOOKS_DOC, 'utf8');
  const block = /<!-- verify-snippet:start -->\s*```js\n([\s\S]*?)```\s*<!-- verify-snippet:end -->/.exec(doc);
  if (!block) throw new Error(`${WEBHOOKS_DOC}: no js block between the verify-snippet markers`);
  const file = join(mkdtempSync(join(tmpdir(), 'bookstage-verify-')), 'verify.mjs');
  writeFileSync(file, `${block[1]}\nexport { verify };\n`);
  return ((await import(pathToFileURL(file).href)) as { verify: Verify }).verify;
}
