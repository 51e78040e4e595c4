// A burst of keyed staging calls, each retried with its own key until it
// answers for good, the way an agent follows docs/reference/http-api.md (202 → poll the
// job or retry; 503 → retry). Every answer is checked on the way: a staged
// answer for a key must always name the same operation, and nothing but
// 201, 202 and 503 dependency_unavailable or outcome_unknown (an add whose
// answer a dropped Redis link lost; the retry converges) may ever come back. No call may hang:
// each has a client-side limit far above the API's own deadlines.
import { collections } from '../../shared/storage/collections.js';
import { decodeStoredOperations } from '../../shared/storage/staged-operations.js';
import { expect } from 'chai';
import type { Db } from 'mongodb';
import { Books } from '../helpers/books.js';
import type { OwnStack } from './own-stack.js';

/** Far above STAGE_WAIT (10 s here) and every dependency deadline: reaching it means the API hung. */
const HANG_LIMIT_MS = 25_000;

export interface BurstBooks {
  books: Books;
  entries: string[];
  token: string;
}

/** `n` invoices, each reversible on its own (one scope each), and a token that may stage. */
export async function burstBooks(s: OwnStack, n: number): Promise<BurstBooks> {
  const books = new Books();
  const entries = Array.from({ length: n }, () => books.invoice(11_900));
  await s.load(books.file);
  return { books, entries, token: await s.token(books.orgId, ['ledger:stage']) };
}

export interface BurstOutcome {
  /** The one operation each key staged. */
  operationByKey: Map<string, string>;
  /** How many answers of each kind were seen (e.g. "201", "202", "503 dependency_unavailable"). */
  seen: Record<string, number>;
}

interface Answered {
  status: number;
  body: { data?: { staged_operation_id?: string }; error?: { code?: string } } | null;
  location: string | null;
}

async function send(
  port: number,
  method: string,
  path: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<Answered> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: method === 'POST' ? '{}' : undefined,
    signal: AbortSignal.timeout(HANG_LIMIT_MS),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Answered['body']) : null,
    location: res.headers.get('location'),
  };
}

/**
 * Stage a reversal of every entry with key `${prefix}-${i}`, `concurrency` at
 * a time, retrying each until it is staged; `onProgress` hears how many keys
 * have had a first answer (a test injects its fault from there).
 */
export async function keyedBurst(
  s: OwnStack,
  bb: BurstBooks,
  prefix: string,
  options: { concurrency?: number; deadlineMs?: number; onFirstAnswers?: (count: number) => void } = {},
): Promise<BurstOutcome> {
  const operationByKey = new Map<string, string>();
  const seen: Record<string, number> = {};
  const deadline = Date.now() + (options.deadlineMs ?? 120_000);
  let firstAnswers = 0;
  const note = (a: Answered): string => {
    const kind = a.status === 503 ? `503 ${a.body?.error?.code}` : String(a.status);
    seen[kind] = (seen[kind] ?? 0) + 1;
    return kind;
  };
  const staged = (key: string, a: Answered): boolean => {
    if (a.status !== 201) return false;
    const id = a.body?.data?.staged_operation_id;
    expect(id, `${key}: a 201 without an operation`).to.be.a('string');
    const earlier = operationByKey.get(key);
    if (earlier) expect(id, `${key}: a retry named another operation`).to.equal(earlier);
    operationByKey.set(key, id!);
    return true;
  };
  const ACCEPTED = ['201', '202', '503 dependency_unavailable', '503 outcome_unknown'];
  const one = async (i: number): Promise<void> => {
    const key = `${prefix}-${i}`;
    const path = `/api/v1/cli/ledger/entries/${bb.entries[i]}/reverse/stage`;
    let first = true;
    for (;;) {
      expect(Date.now(), `${key} never answered for good; seen ${JSON.stringify(seen)}`).to.be.below(deadline);
      const a = await send(s.port, 'POST', path, bb.token, { 'idempotency-key': key, prefer: 'wait=5' });
      if (first) {
        first = false;
        firstAnswers += 1;
        options.onFirstAnswers?.(firstAnswers);
      }
      const kind = note(a);
      expect(ACCEPTED, `${key}: ${JSON.stringify(a.body)}`).to.include(kind);
      if (staged(key, a)) {
        // A replay must name the same operation too.
        const replay = await send(s.port, 'POST', path, bb.token, { 'idempotency-key': key, prefer: 'wait=5' });
        note(replay);
        if (replay.status === 201) staged(key, replay);
        return;
      }
      if (a.status === 202 && a.location) {
        const polled = await send(s.port, 'GET', a.location, bb.token);
        const polledKind = note(polled);
        expect(ACCEPTED, `${key} poll: ${JSON.stringify(polled.body)}`).to.include(polledKind);
        if (staged(key, polled)) return;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  let next = 0;
  const lanes = Array.from({ length: options.concurrency ?? 20 }, async () => {
    while (next < bb.entries.length) await one(next++);
  });
  await Promise.all(lanes);
  return { operationByKey, seen };
}

/** One operation per key, no other operation in the org, every lock held by one of them, none left without its locks. */
export async function expectConverged(db: Db, bb: BurstBooks, outcome: BurstOutcome): Promise<void> {
  const ids = [...outcome.operationByKey.values()];
  expect(outcome.operationByKey.size, 'keys staged').to.equal(bb.entries.length);
  expect(new Set(ids).size, 'distinct operations').to.equal(bb.entries.length);
  const ops = await decodeStoredOperations(
    db,
    await collections(db).stagedOperations.find({ org_id: bb.books.orgId }).toArray(),
  );
  expect(ops.map((o) => String(o._id)).sort(), 'operations in the store').to.deep.equal([...ids].sort());
  const perEntry = new Map<string, number>();
  for (const o of ops) {
    const entry = String((o.plan as { ledger_entry_id: string }).ledger_entry_id);
    perEntry.set(entry, (perEntry.get(entry) ?? 0) + 1);
  }
  expect(
    [...perEntry.values()].every((n) => n === 1),
    'one operation per entry',
  ).to.equal(true);
  const locks = await db.collection('scope_locks').find({ org_id: bb.books.orgId }).toArray();
  const holders = new Set(locks.map((l) => String(l.staged_operation_id)));
  expect(
    [...holders].filter((h) => !ids.includes(h)),
    'orphaned locks',
  ).to.deep.equal([]);
  expect(holders.size, 'operations holding their scope').to.equal(ids.length);
  const events = await db.collection('audit_events').countDocuments({ org_id: bb.books.orgId, to: 'staged' });
  expect(events, 'one staged audit event per operation').to.equal(ids.length);
}
