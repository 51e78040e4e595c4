import { expect } from 'chai';
import express from 'express';
import { MongoClient } from 'mongodb';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app.js';
import { createLogger } from '../../shared/logger.js';
import { Books } from '../helpers/books.js';
import { call, type AnswerBody } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

/** The fields of a pino log line these tests read. */
interface LogLine {
  msg: string;
  request_id?: string;
  service?: string;
  res?: { statusCode: number };
}

const logLine = (line: string): LogLine => JSON.parse(line) as LogLine;

async function orgWithEntry() {
  const books = new Books();
  const entry = books.invoice(1_000);
  const s = await stack();
  await s.load(books.file);
  return { entry, token: await s.token(books.orgId, ['ledger:stage']) };
}

describe('API core: envelope, request ids, body handling', () => {
  it('answers an unknown route with 404 route_not_found in the envelope, with X-Request-Id', async () => {
    const res = await call('GET', '/api/v1/cli/nothing-here');
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.include({ ok: false, api_version: 'v1' });
    expect(res.body.error).to.include({ code: 'route_not_found', status: 404, retryable: false });
    expect(res.headers.get('x-request-id')).to.equal(res.body.request_id);
  });

  it('answers malformed JSON with 400 malformed_json', async () => {
    const { entry, token } = await orgWithEntry();
    const res = await call('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      token,
      rawBody: '{"reason": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('malformed_json');
    expect(res.headers.get('x-request-id')).to.be.a('string');
  });

  it('answers a body that is not JSON with 415 unsupported_media_type', async () => {
    const { entry, token } = await orgWithEntry();
    const res = await call('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      token,
      rawBody: 'reason=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(415);
    expect(res.body.error.code).to.equal('unsupported_media_type');
  });

  it('answers a body over 1 MB with 413 payload_too_large', async () => {
    const { entry, token } = await orgWithEntry();
    const res = await call('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      token,
      body: { reason: 'x'.repeat(1024 * 1024 + 10) },
    });
    expect(res.status).to.equal(413);
    expect(res.body.error.code).to.equal('payload_too_large');
    expect(res.headers.get('x-request-id')).to.be.a('string');
  });

  it("echoes a well-formed incoming X-Request-Id and carries it into the worker's log lines for the job", async () => {
    const { entry, token } = await orgWithEntry();
    const requestId = `test-req.${Date.now()}:abc`;
    const res = await call('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      token,
      body: { reversal_date: '2026-03-01' },
      headers: { 'x-request-id': requestId },
    });
    expect(res.status).to.equal(201);
    expect(res.headers.get('x-request-id')).to.equal(requestId);
    expect(res.body.request_id).to.equal(requestId);
    const s = await stack();
    // The worker logs "job finished" after the answer is stored, and its lines reach
    // this process through a pipe: they may arrive after the HTTP answer does.
    const expected = ['job started', 'staged operation written', 'job finished'];
    const linesOfRequest = () => s.workerLogs.filter((l) => l.includes(requestId)).map(logLine);
    for (
      let waited = 0;
      waited < 5_000 && !expected.every((m) => linesOfRequest().some((l) => l.msg === m));
      waited += 50
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const workerLines = linesOfRequest();
    expect(workerLines.map((l) => l.msg)).to.include.members(expected);
    expect(workerLines.every((l) => l.request_id === requestId && l.service === 'worker')).to.equal(true);
    const apiLines = s.apiLogs.filter((l) => l.includes(requestId)).map(logLine);
    expect(apiLines.some((l) => l.request_id === requestId && l.res?.statusCode === 201)).to.equal(true);
  });

  it('replaces a malformed incoming X-Request-Id with its own', async () => {
    const res = await call('GET', '/nope', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).to.be.a('string').and.not.equal('bad id with spaces');
    expect(res.headers.get('x-request-id')).to.match(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it('never logs the bearer token', async () => {
    const { entry, token } = await orgWithEntry();
    await call('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      token,
      body: { reversal_date: '2026-03-01' },
    });
    const s = await stack();
    expect(s.apiLogs.some((l) => l.includes(token))).to.equal(false);
    expect(s.workerLogs.some((l) => l.includes(token))).to.equal(false);
  });

  it('answers a lost database with 503 dependency_unavailable (retryable, Retry-After) and no stack trace', async () => {
    // A real MongoDB client that is closed: every query fails the way a lost database does.
    const s = await stack();
    const client = new MongoClient(s.config.mongoUrl, { serverSelectionTimeoutMS: 500 });
    await client.connect();
    await client.close();
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const app: express.Express = createApp({
      db: client.db('x'),
      logger: createLogger('api', 'error', sink),
      queue: null as never,
      queueEvents: null as never,
      stageWaitMs: 1000,
      stageWaitMaxMs: 1000,
      jobOptions: null as never,
    });
    const server = app.listen(0);
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/cli/ledger/entries/le_1/reverse/stage`, {
        method: 'POST',
        headers: { authorization: 'Bearer bst_x' },
      });
      const body = (await res.json()) as AnswerBody<unknown>;
      expect(res.status).to.equal(503);
      expect(body.error).to.include({ code: 'dependency_unavailable', retryable: true });
      expect(res.headers.get('retry-after')).to.equal('1');
      expect(JSON.stringify(body)).to.not.match(/at .*\.js:\d+/);
      expect(res.headers.get('x-request-id')).to.equal(body.request_id);
    } finally {
      server.close();
    }
  });

  it('answers an unexpected failure with 500 internal and no stack trace', async () => {
    // A database name MongoDB refuses: every query throws an error that is no outage, a bug.
    const s = await stack();
    const client = new MongoClient(s.config.mongoUrl, { serverSelectionTimeoutMS: 500 });
    await client.connect();
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const app: express.Express = createApp({
      db: client.db('bad$name'),
      logger: createLogger('api', 'error', sink),
      queue: null as never,
      queueEvents: null as never,
      stageWaitMs: 1000,
      stageWaitMaxMs: 1000,
      jobOptions: null as never,
    });
    const server = app.listen(0);
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/cli/ledger/entries/le_1/reverse/stage`, {
        method: 'POST',
        headers: { authorization: 'Bearer bst_x' },
      });
      const body = (await res.json()) as AnswerBody<unknown>;
      expect(res.status).to.equal(500);
      expect(body.error).to.include({ code: 'internal', retryable: true });
      expect(JSON.stringify(body)).to.not.match(/at .*\.js:\d+/);
      expect(res.headers.get('x-request-id')).to.equal(body.request_id);
      expect(lines.join('')).to.include(body.request_id);
    } finally {
      await client.close();
      server.close();
    }
  });
});
