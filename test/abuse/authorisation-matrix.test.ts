// Authorisation matrix (OWASP API1 broken object-level and API5
// broken function-level authorisation): every authenticated route of
// API_ROUTES (shared/contract/routes.ts, so a new route is covered or
// fails here for want of a fixture) × {no token, malformed tokens, a revoked
// token, a token without the route's scope, another organisation, another
// actor of the same organisation}. Each gets its documented 401/403/404
// (docs/reference/http-api.md §3), and a 404 for another org's id is the very same
// answer, but for the id, as the 404 for an id that does not exist.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { API_ROUTES, type RouteContract } from '../../shared/contract/routes.js';
import { TOKEN_SCOPES } from '../../shared/domain/token-scopes.js';
import { duplicateGroupId } from '../../shared/domain/duplicate-groups.js';
import { revokeToken, createToken } from '../../shared/storage/api-tokens.js';
import { stack } from '../helpers/stack.js';
import { call } from '../helpers/http.js';
import { rawRequest, type RawAnswer } from './raw-request.js';
import { orgFixture, type OrgFixture } from './org-fixture.js';

interface Target {
  path: string;
  body?: unknown;
}

/** The request each route gets, naming org `a`'s objects; `missing` names ids that exist nowhere, in the same form. */
function target(route: RouteContract, a: OrgFixture, missing = false): Target {
  const ghost = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}`;
  const op = missing ? ghost('stg') : a.operation;
  const stagedPath = (suffix: string): string => route.path.replace('{id}', op) + suffix;
  switch (route.operation) {
    case 'bank_reconcile.stage':
      return {
        path: route.path,
        body: {
          bank_account_id: missing ? ghost('ba') : a.account,
          statement: { end_date: '2026-02-28', closing_balance_minor: 5_000, currency: 'EUR' },
          transaction_ids: [a.txn],
        },
      };
    case 'ledger_link_repair.stage':
      return {
        path: route.path,
        body: {
          bank_account_id: missing ? ghost('ba') : a.account,
          counterparty_id: a.counterparty,
          as_of: '2026-02-28',
        },
      };
    case 'ledger_reversal.stage':
      return { path: route.path.replace('{entry_id}', missing ? ghost('le') : a.entries[2]!), body: {} };
    case 'statement_import.stage':
      return {
        path: route.path.replace('{bank_account_id}', missing ? ghost('ba') : a.account),
        body: 'not a statement',
      };
    case 'journal_entry.stage':
      return {
        path: route.path,
        body: {
          entry_date: '2026-03-02',
          description: 'Bank fee',
          reference: 'FEE-1',
          counterparty_id: a.counterparty,
          currency: 'EUR',
          // Codes of both fixtures' charts (org-fixture.ts).
          lines: [
            { account: '8400', debit_minor: 350, credit_minor: 0 },
            { account: '1600', debit_minor: 0, credit_minor: 350 },
          ],
          bank_transaction_id: missing ? ghost('bt') : a.txn,
        },
      };
    case 'inbox_duplicates.list':
    case 'staged_operations.list':
    case 'whoami.show':
    case 'bank_accounts.list':
    case 'bank_transactions.list':
    case 'ledger_entries.list':
    case 'ledger_accounts.list':
    case 'inbox_documents.list':
      return { path: route.path };
    case 'bank_accounts.show':
    case 'bank_accounts.csv_mapping.show':
      return { path: route.path.replace('{bank_account_id}', missing ? ghost('ba') : a.account) };
    case 'bank_accounts.csv_mapping.put':
      return {
        path: route.path.replace('{bank_account_id}', missing ? ghost('ba') : a.account),
        body: { date_column: 'date', amount_column: 'amount' },
      };
    case 'bank_transactions.show':
      return { path: route.path.replace('{bank_transaction_id}', missing ? ghost('bt') : a.txn) };
    case 'ledger_entries.show':
      return { path: route.path.replace('{entry_id}', missing ? ghost('le') : a.entries[0]!) };
    case 'inbox_documents.show':
      return {
        path: route.path.replace('{document_id}', missing ? ghost('doc') : a.books.file.inbox_documents[0]!.id),
      };
    case 'ledger.trial_balance':
      return { path: route.path };
    case 'books.export':
      return { path: `${route.path}?format=hledger` };
    case 'counterparties.list':
      return { path: `${route.path}?bank_account_id=${missing ? ghost('ba') : a.account}` };
    case 'jobs.show':
      return { path: route.path.replace('{job_id}', missing ? ghost('job') : a.job) };
    case 'staged_operations.show':
      return { path: stagedPath('') };
    case 'staged_operations.approve':
    case 'staged_operations.apply':
      return { path: stagedPath(''), body: {} };
    case 'staged_operations.reject':
      return { path: stagedPath(''), body: { note: 'not mine to reject' } };
    case 'revert.stage':
      return { path: stagedPath(''), body: {} };
    case 'events.list':
    case 'webhook_endpoints.list':
    case 'approval_policy.show':
      return { path: route.path };
    case 'approval_policy.stage':
      return {
        path: route.path,
        body: {
          rules: [{ kinds: ['*'], approvals: 2, approvers: 'people' }],
          agents_may_approve: false,
          unattended: [],
        },
      };
    case 'webhook_endpoints.create':
      return { path: route.path, body: { url: 'https://hooks.example.com/x' } };
    case 'webhook_endpoints.delete':
    case 'webhook_endpoints.deliveries':
      return { path: route.path.replace('{id}', missing ? ghost('whe') : aEndpoint) };
    case 'period_close.stage':
      return { path: route.path, body: { through: '2026-01-31' } };
    case 'periods.list':
      return { path: route.path };
    case 'periods.show':
      // Org a's closed period (made in `before`); a day no organisation closed.
      return { path: route.path.replace('{through}', missing ? '2020-01-31' : '2026-01-31') };
    case 'bank_match.stage':
      return {
        path: route.path,
        body: {
          bank_account_id: missing ? ghost('ba') : a.account,
          matches: [{ bank_transaction_id: a.txn, ledger_entry_id: a.entries[0]!, amount_minor: 1 }],
        },
      };
    case 'match_suggestions.list':
      return { path: route.path.replace('{bank_transaction_id}', missing ? ghost('bt') : a.txn) };
    case 'match_suggestions.decline':
      return {
        path: route.path.replace('{bank_transaction_id}', missing ? ghost('bt') : a.txn),
        body: { ledger_entry_ids: [a.entries[0]!] },
      };
    case 'inbox_duplicates_resolve.stage': {
      // Org a's one duplicate group: its two documents share a file (org-fixture.ts).
      const group = duplicateGroupId(a.books.file.inbox_documents.slice(0, 2).map((d) => d.id));
      return {
        path: route.path.replace('{group_id}', missing ? `grp_${randomBytes(8).toString('hex')}` : group),
        body: { resolution: 'not_duplicates' },
      };
    }
    default:
      throw new Error(
        `no authorisation fixture for ${route.operation}: add one to test/abuse/authorisation-matrix.test.ts`,
      );
  }
}

async function send(route: RouteContract, t: Target, authorization: string | null): Promise<RawAnswer> {
  const headers: Record<string, string> = authorization === null ? {} : { authorization };
  const body = t.body === undefined ? undefined : JSON.stringify(t.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return rawRequest({ method: route.method.toUpperCase(), path: t.path, headers, body });
}

function expectError(res: RawAnswer, status: number, code: string, where: string): Record<string, unknown> {
  const msg = `${where}: ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, msg).to.equal(status);
  expect(res.headers['x-request-id'], msg).to.be.a('string');
  expect(res.json, msg).to.include({ ok: false, api_version: 'v1', request_id: res.headers['x-request-id'] });
  expect((res.json!.error as { code: string }).code, msg).to.equal(code);
  return res.json!.error as Record<string, unknown>;
}

/** An error body with the id it names replaced, for comparing two 404s. */
const shapeOf = (error: Record<string, unknown>, id: string): string => JSON.stringify(error).split(id).join('<id>');

/** The id a `missing` target names (path or body), to blank it out of its 404. */
function namedId(t: Target): string {
  const body = t.body as { bank_account_id?: string; bank_transaction_id?: string } | undefined;
  return (
    body?.bank_account_id ??
    body?.bank_transaction_id ??
    t.path.split(/[/=]/).find((seg) => /^((stg|job|le|ba|bt|doc|whe|grp)_|\d{4}-\d{2}-\d{2}$)/.test(seg))!
  );
}

const ROUTES = API_ROUTES.filter((r) => r.auth !== null);
/** Routes that name no id: answered for the caller's own organisation, so "another org" means "never org a's ids". */
const ORG_WIDE = [
  'inbox_duplicates.list',
  'staged_operations.list',
  'whoami.show',
  'bank_accounts.list',
  'bank_transactions.list',
  'ledger_entries.list',
  'ledger_accounts.list',
  'inbox_documents.list',
  'ledger.trial_balance',
  'books.export',
];
/** Org-wide routes of the event feed and webhooks (docs/reference/webhooks.md): no id to leak; test/http/webhooks.test.ts checks the org boundary of deliveries. */
const NO_ID = [
  'events.list',
  'webhook_endpoints.list',
  'webhook_endpoints.create',
  'period_close.stage',
  'periods.list',
  'approval_policy.show',
  'approval_policy.stage',
];
/** Org a's webhook endpoint, made in `before`. */
let aEndpoint = '';

describe('abuse: authorisation matrix', function () {
  this.timeout(120_000);
  let a: OrgFixture;
  let b: OrgFixture;

  before(async () => {
    a = await orgFixture();
    b = await orgFixture();
    // The tests' stack allows http webhook URLs on loopback (WEBHOOK_ALLOW_INSECURE); nothing listens there, nothing is delivered by these tests.
    const created = await call<{ id: string }>('POST', '/api/v1/cli/webhook-endpoints', {
      token: a.alice,
      body: {
        url: 'http://127.0.0.1:9/authorisation-matrix',
        event_types: ['staged_operation.applied'],
        description: 'authorisation matrix',
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    aEndpoint = created.body.data.id;
    // Org a's closed period, written as a period close's apply writes it (docs/design/staged-lifecycle.md "Closing a period").
    await (await stack()).db.collection('closed_periods').insertOne({
      _id: `${a.orgId}:2026-01-31`,
      org_id: a.orgId,
      version: 1,
      through: '2026-01-31',
      closed_at: '2026-11-01T00:00:00.000Z',
      approved_by: 'bob',
      hash: '0'.repeat(64),
      staged_operation_id: a.operation,
      lock_date_before: null,
    } as never);
  });

  it('covers every authenticated route of the API contract', () => {
    expect(ROUTES.length).to.be.at.least(10);
    for (const route of ROUTES) expect(() => target(route, a), route.operation).to.not.throw();
  });

  it('401 unauthenticated without a token, with a malformed one, and with a revoked one, on every route', async () => {
    const s = await stack();
    const revoked = await createToken(s.db, { org_id: a.orgId, actor: 'alice', scopes: [...TOKEN_SCOPES] });
    expect(await revokeToken(s.db, revoked.token_id)).to.equal(true);
    const malformed = [
      '',
      'Bearer',
      'Bearer ',
      `Basic ${Buffer.from('alice:pw').toString('base64')}`,
      `Bearer ${a.alice} extra`,
      `Bearer ${a.alice.slice(0, -1)}`,
      `bearer${a.alice}`,
      `Bearer ${'x'.repeat(513)}`,
    ];
    for (const route of ROUTES) {
      const t = target(route, a);
      expectError(await send(route, t, null), 401, 'unauthenticated', `${route.operation} without a token`);
      for (const header of malformed)
        expectError(
          await send(route, t, header),
          401,
          'unauthenticated',
          `${route.operation} with "${header.slice(0, 40)}"`,
        );
      expectError(
        await send(route, t, `Bearer ${revoked.token}`),
        401,
        'unauthenticated',
        `${route.operation} with a revoked token`,
      );
    }
  });

  it("403 forbidden with details.required_scope for a token with every scope but the route's", async () => {
    const s = await stack();
    for (const route of ROUTES.filter((r) => r.auth?.scope)) {
      const scope = route.auth!.scope!;
      const token = await s.token(
        a.orgId,
        TOKEN_SCOPES.filter((x) => x !== scope),
        'alice',
      );
      const error = expectError(
        await send(route, target(route, a), `Bearer ${token}`),
        403,
        'forbidden',
        `${route.operation} without ${scope}`,
      );
      expect(error.details).to.deep.equal({ required_scope: scope });
    }
  });

  it("another organisation: 404 for org a's ids, identical but for the id to the 404 for an id that does not exist", async () => {
    for (const route of ROUTES.filter((r) => !ORG_WIDE.includes(r.operation) && !NO_ID.includes(r.operation))) {
      const foreign = target(route, a);
      const missing = target(route, a, true);
      const seen = expectError(
        await send(route, foreign, `Bearer ${b.bob}`),
        404,
        'not_found',
        `${route.operation} of org a as org b`,
      );
      const absent = expectError(
        await send(route, missing, `Bearer ${b.bob}`),
        404,
        'not_found',
        `${route.operation} of a missing id as org b`,
      );
      expect(shapeOf(seen, namedId(foreign)), route.operation).to.equal(shapeOf(absent, namedId(missing)));
    }
  });

  it("another organisation: lists and the duplicate overview never carry org a's ids", async () => {
    for (const route of ROUTES.filter((r) => ORG_WIDE.includes(r.operation))) {
      const res = await send(route, target(route, a), `Bearer ${b.bob}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.text, route.operation).to.not.include(a.uid);
      expect(res.text, route.operation).to.include(b.uid);
    }
  });

  it('another actor of the same organisation: 404 for a job it did not start and an operation it may not see', async () => {
    const s = await stack();
    const bobOnly = await s.token(a.orgId, [...TOKEN_SCOPES], 'bob');
    for (const route of ROUTES.filter((r) => r.operation === 'jobs.show')) {
      expectError(
        await send(route, target(route, a), `Bearer ${bobOnly}`),
        404,
        'not_found',
        'jobs.show by another actor',
      );
    }
    for (const route of ROUTES.filter(
      (r) => r.operation.startsWith('staged_operations.') && r.operation !== 'staged_operations.list',
    )) {
      // carol lacks staged:approve: approve and reject are 403 by scope; show and apply must not reveal the operation.
      const res = await send(route, target(route, a), `Bearer ${a.carol}`);
      if (route.auth!.scope === 'staged:approve') expectError(res, 403, 'forbidden', `${route.operation} by carol`);
      else expectError(res, 404, 'not_found', `${route.operation} by carol`);
    }
    const list = await send(
      ROUTES.find((r) => r.operation === 'staged_operations.list')!,
      { path: '/api/v1/cli/staged-operations' },
      `Bearer ${a.carol}`,
    );
    expect(list.status).to.equal(200);
    expect(list.text).to.not.include(a.operation);
  });

  it("none of it changed org a's staged operation", async () => {
    const res = await rawRequest({
      method: 'GET',
      path: `/api/v1/cli/staged-operations/${a.operation}`,
      headers: { authorization: `Bearer ${a.alice}` },
    });
    const data = res.json!.data as { status: string; history: unknown[] };
    expect(data.status).to.equal('staged');
    expect(data.history).to.have.length(1);
  });
});
