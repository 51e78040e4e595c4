// bookstage events list|tail and webhooks add|list|remove|deliveries against
// the real stack (docs/reference/webhooks.md).
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { verifySignature } from '../../shared/webhook-signature.js';
import type { ReversalData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { receiver, waitUntil } from '../helpers/receiver.js';
import { stack } from '../helpers/stack.js';
import { CLI_MAIN, envelopeOf, runCli } from './run-cli.js';

async function orgWithEntry(): Promise<{ url: string; token: string; entry: string }> {
  const s = await stack();
  const books = new Books();
  const entry = books.invoice(7_500);
  await s.load(books.file);
  return {
    url: s.baseUrl,
    token: await s.token(books.orgId, ['ledger:stage', 'events:read', 'webhooks:manage']),
    entry,
  };
}

const stageReversal = async (token: string, entry: string) =>
  call<ReversalData>('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
    token,
    body: { reversal_date: '2026-03-01' },
  });

describe('bookstage events and webhooks commands', function () {
  this.timeout(60_000);

  it('webhooks add prints the secret once; list shows the endpoint without it; remove deletes it (then exit 4)', async () => {
    const { url, token } = await orgWithEntry();
    const added = await runCli(
      ['webhooks', 'add', 'http://127.0.0.1:9/hook', '--event-type', 'staged_operation.applied', '--json'],
      { url, token },
    );
    expect(added.code, added.stderr).to.equal(0);
    const created = envelopeOf<{ id: string; secret: string; event_types: string[] }>(added.stdout).data;
    expect(created.secret).to.match(/^whsec_/);
    expect(created.event_types).to.deep.equal(['staged_operation.applied']);
    const listed = await runCli(['webhooks', 'list', '--json'], { url, token });
    const items = envelopeOf<{ items: Array<Record<string, unknown>> }>(listed.stdout).data.items;
    expect(items.map((i) => i.id)).to.deep.equal([created.id]);
    expect(items[0]).to.not.have.property('secret');
    expect((await runCli(['webhooks', 'deliveries', created.id, '--json'], { url, token })).code).to.equal(0);
    // Without --json: a table of endpoints, and of (no) delivery attempts; never the staged-operations table.
    const shown = await runCli(['webhooks', 'list'], { url, token });
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.match(
      new RegExp(`${created.id}\\s+http://127\\.0\\.0\\.1:9/hook\\s+staged_operation\\.applied`),
    );
    expect(shown.stdout).to.not.include('No staged operations');
    const attempts = await runCli(['webhooks', 'deliveries', created.id], { url, token });
    expect([attempts.code, attempts.stdout]).to.deep.equal([0, 'No delivery attempts.\n']);
    expect((await runCli(['webhooks', 'remove', created.id], { url, token })).code).to.equal(0);
    expect((await runCli(['webhooks', 'remove', created.id], { url, token })).code).to.equal(4);
  });

  it('events list prints the feed; events tail --forward-to posts each event signed with the secret it printed', async () => {
    const { url, token, entry } = await orgWithEntry();
    const staged = await stageReversal(token, entry);
    expect(staged.status).to.equal(201);
    const r = await receiver();
    const child = spawn(
      process.execPath,
      [CLI_MAIN, 'events', 'tail', '--from-start', '--interval', '1', '--forward-to', r.url, '--json'],
      {
        env: { ...process.env, BOOKSTAGE_URL: url, BOOKSTAGE_TOKEN: token },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    try {
      await waitUntil('the forwarded event', () => r.received.length >= 1, 20_000);
      const secret = /signed with (whsec_\S+)/.exec(stderr)?.[1];
      const got = r.received[0]!;
      expect(
        verifySignature(secret!, got.body, String(got.headers['bookstage-signature']), Math.floor(Date.now() / 1000)),
      ).to.equal(true);
      const event = JSON.parse(got.body) as {
        type: string;
        data: { staged_operation: { staged_operation_id: string } };
      };
      expect([event.type, event.data.staged_operation.staged_operation_id]).to.deep.equal([
        'staged_operation.staged',
        staged.body.data.staged_operation_id,
      ]);
      expect(
        stdout
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { id: string }).id),
      ).to.deep.equal([got.headers['bookstage-event-id']]);
    } finally {
      child.kill('SIGTERM');
      await r.close();
    }
    const listed = await runCli(['events', 'list', '--json'], { url, token });
    expect(listed.code).to.equal(0);
    expect(envelopeOf<{ items: Array<{ type: string }> }>(listed.stdout).data.items.map((e) => e.type)).to.deep.equal([
      'staged_operation.staged',
    ]);
    // Without --json: one row per event, with its sequence, type and operation.
    const table = await runCli(['events', 'list'], { url, token });
    expect(table.code, table.stderr).to.equal(0);
    expect(table.stdout).to.match(
      new RegExp(`\\s\\d+\\s+staged_operation\\.staged\\s+${staged.body.data.staged_operation_id}\\s`),
    );
  });
});
