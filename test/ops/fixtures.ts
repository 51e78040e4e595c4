// Books and requests shared by the ops tests: a posted invoice to reverse
// (the cheapest staging job) and a small HTTP client against any base URL.
import type { Db } from 'mongodb';
import { importBooks } from '../../shared/books/import.js';
import { createToken } from '../../shared/storage/api-tokens.js';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';

export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & {
    error?: { code: string; details: Record<string, unknown> };
    data?: Record<string, unknown>;
    request_id?: string;
  };
}

export async function request(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  let body: Reply['body'] = {};
  try {
    body = text ? (JSON.parse(text) as Reply['body']) : {};
  } catch {
    body = { text };
  }
  return { status: res.status, headers: res.headers, body };
}

/**
 * An org with `n` invoices, each reversible on its own (no overlapping scopes), and a token that may stage and read;
 * in the shared stack's database unless `db` names another.
 */
export async function reversibleEntries(
  n: number,
  db?: Db,
): Promise<{ orgId: string; entries: string[]; token: string }> {
  const books = new Books();
  const entries = Array.from({ length: n }, () => books.invoice(1_000));
  const target = db ?? (await stack()).db;
  const imported = await importBooks(target, books.file);
  if (!imported.ok) throw new Error(`books refused: ${JSON.stringify(imported.errors)}`);
  const { token } = await createToken(target, {
    org_id: books.orgId,
    actor: 'alice',
    scopes: ['ledger:stage', 'staged:read'],
  });
  return { orgId: books.orgId, entries, token };
}

export const reversePath = (entryId: string): string => `/api/v1/cli/ledger/entries/${entryId}/reverse/stage`;
export const REVERSAL = { reversal_date: '2026-03-01', reason: 'ops test' };

/** How many staged operations an org has (the "one staged operation" checks). */
export async function stagedCount(orgId: string): Promise<number> {
  return (await stack()).db.collection('staged_operations').countDocuments({ org_id: orgId });
}

/** GET a job until it is no longer 202 (at most `ms`). */
export async function untilAnswered(baseUrl: string, jobId: string, token: string, ms = 30_000): Promise<Reply> {
  const until = Date.now() + ms;
  for (;;) {
    const reply = await request(baseUrl, 'GET', `/api/v1/cli/jobs/${jobId}`, { token });
    if (reply.status !== 202) return reply;
    if (Date.now() > until) throw new Error(`job ${jobId} still pending after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
