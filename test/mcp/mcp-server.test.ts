// `bookstage mcp` against the real stack, driven by the MCP SDK's own client:
// the tools an agent sees, their schemas (the API's own), each tool's result
// (the API's data with request_id and warnings), refusals, pending jobs,
// idempotency, and the human-in-the-loop gates on review and apply. Every
// session must have written nothing but JSON-RPC messages to stdout.
import {
  inboxResolveStageParamsSchema,
  inboxResolveStageRequestSchema,
} from '../../shared/kinds/inbox-duplicates-resolve/schema.js';
import { expect } from 'chai';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { McpError, Tool } from '@modelcontextprotocol/sdk/types.js';
import { dryRunArgSchema, idempotencyKeySchema, waitSecondsSchema } from '../../cli/bookstage/mcp/tool-schemas.js';
import {
  bankAccountParamsSchema,
  bankTransactionParamsSchema,
  counterpartiesQuerySchema,
  trialBalanceQuerySchema,
  documentParamsSchema,
  documentsQuerySchema,
  entriesQuerySchema,
  entryParamsSchema,
  ledgerAccountsQuerySchema,
  noQuerySchema,
  transactionsQuerySchema,
} from '../../shared/schemas/books-read.js';
import { inboxDuplicatesQuerySchema } from '../../shared/schemas/inbox-duplicates.js';
import { linkRepairStageRequestSchema } from '../../shared/kinds/ledger-link-repair/schema.js';
import { reconcileStageRequestSchema } from '../../shared/kinds/bank-reconcile/schema.js';
import { bankMatchStageRequestSchema } from '../../shared/kinds/bank-match/schema.js';
import { matchDeclineBodySchema, matchSuggestionsQuerySchema } from '../../shared/schemas/match-suggestions.js';
import { revertStageParamsSchema, revertStageRequestSchema } from '../../shared/kinds/revert/schema.js';
import { reversalStageParamsSchema, reversalStageRequestSchema } from '../../shared/kinds/ledger-reversal/schema.js';
import { journalEntryStageRequestSchema } from '../../shared/kinds/journal-entry/schema.js';
import { stagedListQuerySchema, stagedOperationParamsSchema } from '../../shared/schemas/staged-operations.js';
import { eventsQuerySchema } from '../../shared/schemas/events.js';
import {
  STATEMENT_BODY_LIMIT_BYTES,
  statementImportParamsSchema,
  statementImportQuerySchema,
} from '../../shared/kinds/statement-import/schema.js';
import { jobIdSchema } from '../../shared/schemas/staging-results.js';
import { periodParamsSchema, periodsQuerySchema } from '../../shared/schemas/periods.js';
import { compile } from '../../shared/schemas/validator.js';
import { TOKEN_SCOPES, type TokenScope } from '../../shared/domain/token-scopes.js';
import { Books } from '../helpers/books.js';
import { call, type Answer } from '../helpers/http.js';
import { approve, countStagedWithPlan, doc } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';
import { startDropProxy } from '../cli/drop-proxy.js';
import { startMcp, type McpSession } from './mcp-client.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

const DEFAULT_TOOLS = [
  'decline_match_suggestion',
  'get_approval_policy',
  'get_bank_account',
  'get_bank_transaction',
  'get_closed_period',
  'get_inbox_document',
  'get_job',
  'get_ledger_entry',
  'get_staged_operation',
  'get_trial_balance',
  'list_bank_accounts',
  'list_bank_transactions',
  'list_closed_periods',
  'list_counterparties',
  'list_events',
  'list_inbox_documents',
  'list_inbox_duplicates',
  'list_ledger_accounts',
  'list_ledger_entries',
  'list_staged_operations',
  'stage_bank_match',
  'stage_bank_reconciliation',
  'stage_inbox_duplicates_resolution',
  'stage_journal_entry',
  'stage_ledger_link_repair',
  'stage_ledger_reversal',
  'stage_revert',
  'stage_statement_import',
  'suggest_matches',
];
const EXTRA = { idempotency_key: idempotencyKeySchema, wait_seconds: waitSecondsSchema, dry_run: dryRunArgSchema };

/** Each default tool's input schema, written out from the API's schemas for the same call. */
const EXPECTED_INPUT: Record<string, object> = {
  stage_bank_match: {
    ...bankMatchStageRequestSchema,
    properties: { ...bankMatchStageRequestSchema.properties, ...EXTRA },
  },
  stage_bank_reconciliation: {
    ...reconcileStageRequestSchema,
    properties: { ...reconcileStageRequestSchema.properties, ...EXTRA },
  },
  stage_ledger_link_repair: {
    ...linkRepairStageRequestSchema,
    properties: { ...linkRepairStageRequestSchema.properties, ...EXTRA },
  },
  stage_ledger_reversal: {
    ...reversalStageRequestSchema,
    required: ['entry_id'],
    properties: {
      entry_id: reversalStageParamsSchema.properties.entry_id,
      ...reversalStageRequestSchema.properties,
      ...EXTRA,
    },
  },
  stage_journal_entry: {
    ...journalEntryStageRequestSchema,
    properties: { ...journalEntryStageRequestSchema.properties, ...EXTRA },
  },
  stage_revert: {
    ...revertStageRequestSchema,
    required: ['id'],
    properties: { id: revertStageParamsSchema.properties.id, ...revertStageRequestSchema.properties, ...EXTRA },
  },
  stage_inbox_duplicates_resolution: {
    ...inboxResolveStageRequestSchema,
    required: ['group_id', 'resolution'],
    properties: {
      group_id: inboxResolveStageParamsSchema.properties.group_id,
      ...inboxResolveStageRequestSchema.properties,
      ...EXTRA,
    },
  },
  // The path's account, the query (format, encoding, CSV mapping) and the file as text or base64 (exactly one).
  stage_statement_import: {
    ...statementImportQuerySchema,
    type: 'object',
    required: ['bank_account_id'],
    properties: {
      bank_account_id: statementImportParamsSchema.properties.bank_account_id,
      ...statementImportQuerySchema.properties,
      ...EXTRA,
      content: {
        type: 'string',
        minLength: 1,
        maxLength: STATEMENT_BODY_LIMIT_BYTES,
        description: "The file's content as text (sent as UTF-8). For a file in another encoding, use content_base64.",
      },
      content_base64: {
        type: 'string',
        minLength: 1,
        maxLength: Math.ceil(STATEMENT_BODY_LIMIT_BYTES / 3) * 4,
        pattern: '^[A-Za-z0-9+/]*={0,2}$',
        description: "The file's bytes, base64-encoded.",
      },
    },
    oneOf: [
      { required: ['content'], properties: { content: { type: 'string' } } },
      { required: ['content_base64'], properties: { content_base64: { type: 'string' } } },
    ],
  },
  list_inbox_duplicates: inboxDuplicatesQuerySchema,
  list_staged_operations: stagedListQuerySchema,
  list_events: eventsQuerySchema,
  get_staged_operation: stagedOperationParamsSchema,
  get_job: { type: 'object', additionalProperties: false, required: ['job_id'], properties: { job_id: jobIdSchema } },
  // The book reads (docs/reference/book-reads.md): their query or path schema as the API validates it.
  list_bank_accounts: noQuerySchema,
  // The policy in force takes no argument.
  get_approval_policy: { type: 'object', additionalProperties: false, properties: {} },
  get_bank_account: bankAccountParamsSchema,
  list_bank_transactions: transactionsQuerySchema,
  get_bank_transaction: bankTransactionParamsSchema,
  list_ledger_entries: entriesQuerySchema,
  list_ledger_accounts: ledgerAccountsQuerySchema,
  get_ledger_entry: entryParamsSchema,
  list_counterparties: counterpartiesQuerySchema,
  get_trial_balance: trialBalanceQuerySchema,
  list_inbox_documents: documentsQuerySchema,
  get_inbox_document: documentParamsSchema,
  list_closed_periods: periodsQuerySchema,
  get_closed_period: periodParamsSchema,
  suggest_matches: {
    ...matchSuggestionsQuerySchema,
    required: ['bank_transaction_id'],
    properties: {
      bank_transaction_id: bankTransactionParamsSchema.properties.bank_transaction_id,
      ...matchSuggestionsQuerySchema.properties,
    },
  },
  decline_match_suggestion: {
    ...matchDeclineBodySchema,
    required: ['bank_transaction_id'],
    properties: {
      bank_transaction_id: bankTransactionParamsSchema.properties.bank_transaction_id,
      ...matchDeclineBodySchema.properties,
    },
  },
};

// An Ajv as MCP hosts configure it (non-strict, formats checked), for the output schemas.
const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;
const hostAjv = addFormats(new Ajv({ strict: false, allErrors: true }));

/** The tool result the API's envelope should give: its data with request_id and warnings. */
function structuredOf(answer: Answer): Record<string, unknown> {
  return { ...(answer.body.data as object), request_id: answer.body.request_id, warnings: answer.body.warnings };
}

const withoutRequestId = (value: Record<string, unknown>): Record<string, unknown> => ({ ...value, request_id: null });

/** The test books: one org with something for every tool. */
function testBooks() {
  const books = new Books();
  const account = books.account();
  const entry = (amount: number): string => {
    const e = books.invoice(amount);
    books.link(books.txn(account, amount), e, amount);
    return e;
  };
  const reversible = entry(7_500);
  const pendingEntry = entry(1_200);
  const keyedEntry = entry(3_300);
  const applyEntry = entry(4_100);
  const rejectEntry = entry(900);
  const droppedEntry = entry(2_700);
  const eventEntry = entry(1_900);
  const reversed = books.invoice(5_000, { status: 'reversed', reversed_by: `le_${books.uid}_rev` });
  books.invoice(-5_000, { id: `le_${books.uid}_rev`, reversal_of: reversed });

  const reconcileAccount = books.account({ opening_balance_minor: 10_000 });
  const a = books.linkedTxn(reconcileAccount, 56_000);
  const b = books.linkedTxn(reconcileAccount, -6_000, { booking_date: '2026-02-12' });

  const importAccount = books.account({ iban: 'DE89370400440532013000' });

  const repairAccount = books.account();
  const cp = books.cp('repair');
  const older = books.invoice(4_000, { entry_date: '2026-01-05', counterparty_id: cp });
  const newer = books.invoice(4_000, { entry_date: '2026-01-20', counterparty_id: cp });
  const repairTxn = books.txn(repairAccount, 4_000, { counterparty_id: cp });
  books.link(repairTxn, newer, 4_000);

  const documents = ['aa', 'aa', 'bb', 'bb'].map((sha, i) =>
    books.doc({
      received_at: `2026-02-0${i + 1}T09:00:00.000Z`,
      file: { sha256: sha.repeat(32), name: `${i}.pdf`, size: 1, mime: 'application/pdf' },
    }),
  );
  return {
    books,
    importAccount,
    reversible,
    pendingEntry,
    keyedEntry,
    applyEntry,
    rejectEntry,
    droppedEntry,
    eventEntry,
    reversed,
    older,
    repairTxn,
    documents,
    reconcile: {
      bank_account_id: reconcileAccount,
      statement: { end_date: '2026-02-28', closing_balance_minor: 60_000, currency: 'EUR', reference: 'ST-2' },
      transaction_ids: [a.txn, b.txn],
    },
    repair: { bank_account_id: repairAccount, counterparty_id: cp, as_of: '2026-12-31' },
  };
}

describe('bookstage mcp (MCP server over the HTTP API)', function () {
  this.timeout(60_000);

  let t: ReturnType<typeof testBooks>;
  let url: string;
  let alice: string;
  let bob: string;
  let mcp: McpSession;
  let tools: Map<string, Tool>;
  const sessions: McpSession[] = [];

  const REVERSE = (entry: string): string => `/api/v1/cli/ledger/entries/${entry}/reverse/stage`;

  /** structuredContent must validate against the tool's declared outputSchema. */
  function expectValidOutput(name: string, structured: unknown): void {
    const validate = hostAjv.compile(tools.get(name)!.outputSchema!);
    expect(validate(structured), `${name}: ${JSON.stringify(validate.errors)}`).to.equal(true);
  }

  before(async () => {
    const s = await stack();
    t = testBooks();
    await s.load(t.books.file);
    url = s.baseUrl;
    alice = await s.token(t.books.orgId, TOKEN_SCOPES as unknown as TokenScope[], 'alice');
    bob = await s.token(t.books.orgId, ['staged:read', 'staged:approve'], 'bob');
    mcp = await startMcp({ url, token: alice });
    sessions.push(mcp);
    tools = new Map((await mcp.client.listTools()).tools.map((tool) => [tool.name, tool]));
  });

  after(async () => {
    for (const session of sessions) await session.close();
  });

  it("offers exactly the default tools, each input schema the API's own for that call (plus idempotency_key and wait_seconds when staging)", () => {
    expect([...tools.keys()].sort()).to.deep.equal(DEFAULT_TOOLS);
    for (const [name, tool] of tools) {
      expect(() => compile(tool.inputSchema), name).to.not.throw();
      expect(tool.inputSchema, name).to.deep.equal(EXPECTED_INPUT[name]);
      expect(() => hostAjv.compile(tool.outputSchema!), name).to.not.throw();
      expect(tool.description, name).to.have.length.above(80);
      if (name.startsWith('stage_')) {
        expect(tool.annotations, name).to.include({
          destructiveHint: false,
          idempotentHint: true,
          readOnlyHint: false,
        });
        expect(tool.description, name).to.include('until a person approves and applies');
      } else if (name === 'decline_match_suggestion') {
        // It records a decline (never stages): not read-only, not destructive, the same call twice is one decline.
        expect(tool.annotations, name).to.include({
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: true,
        });
      } else {
        expect(tool.annotations, name).to.include({ readOnlyHint: true });
      }
    }
    expect(mcp.stderr()).to.include('bookstage mcp: serving');
  });

  it("stage_statement_import stages a file given as text or as base64, query arguments as the API's query", async () => {
    const csv = 'date,amount,name\n2026-11-03,12.50,Alpha\n';
    const asText = await mcp.call('stage_statement_import', {
      bank_account_id: t.importAccount,
      content: csv,
      date_column: 'date',
      amount_column: 'amount',
      counterparty_column: 'name',
      idempotency_key: `mcp-imp-${t.books.uid}`,
    });
    expect(asText.isError ?? false, JSON.stringify(asText.structuredContent)).to.equal(false);
    expect(asText.structuredContent).to.include({ outcome: 'staged' });
    expectValidOutput('stage_statement_import', asText.structuredContent);
    const plan = asText.structuredContent.plan as {
      new_transactions: { amount_minor: number; counterparty_name: string }[];
    };
    expect(plan.new_transactions.map((n) => [n.amount_minor, n.counterparty_name])).to.deep.equal([[1250, 'Alpha']]);
    // The same bytes as base64: the very same plan, already pending.
    const asBase64 = await mcp.call('stage_statement_import', {
      bank_account_id: t.importAccount,
      content_base64: Buffer.from(csv).toString('base64'),
      date_column: 'date',
      amount_column: 'amount',
      counterparty_column: 'name',
    });
    expect(asBase64.structuredContent).to.include({
      outcome: 'staged',
      staged_operation_id: asText.structuredContent.staged_operation_id,
    });
    const neither = await mcp.call('stage_statement_import', { bank_account_id: t.importAccount });
    expect(neither.isError).to.equal(true);
  });

  it("each staging tool answers the API's data for the same request, with request_id and warnings", async () => {
    const reversal = await mcp.call('stage_ledger_reversal', {
      entry_id: t.reversible,
      reason: 'booked twice',
      idempotency_key: `mcp-rev-${t.books.uid}`,
    });
    expect(reversal.isError ?? false).to.equal(false);
    expect(reversal.structuredContent).to.include({ outcome: 'staged', status: 'staged' });
    // The same key and body over HTTP replay the stored answer: the very data the tool returned.
    const replay = await call('POST', REVERSE(t.reversible), {
      token: alice,
      body: { reason: 'booked twice' },
      headers: { 'idempotency-key': `mcp-rev-${t.books.uid}` },
    });
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(reversal.structuredContent).to.deep.equal(structuredOf(replay));
    expectValidOutput('stage_ledger_reversal', reversal.structuredContent);
    const summary = (reversal.content[0] as { text: string }).text;
    expect(summary).to.equal(
      `Staged operation ${String(reversal.structuredContent.staged_operation_id)} (status staged, expires ${String(reversal.structuredContent.expires_at)}). ` +
        'Nothing in the books changes until a person approves and applies it.',
    );

    const reconcile = await mcp.call('stage_bank_reconciliation', {
      ...t.reconcile,
      idempotency_key: `mcp-rec-${t.books.uid}`,
    });
    expect(reconcile.structuredContent).to.include({ outcome: 'staged' });
    const reconcileReplay = await call('POST', '/api/v1/cli/bank-matches/reconcile/stage', {
      token: alice,
      body: t.reconcile,
      headers: { 'idempotency-key': `mcp-rec-${t.books.uid}` },
    });
    expect(reconcile.structuredContent).to.deep.equal(structuredOf(reconcileReplay));
    expectValidOutput('stage_bank_reconciliation', reconcile.structuredContent);

    const repair = await mcp.call('stage_ledger_link_repair', {
      ...t.repair,
      idempotency_key: `mcp-rep-${t.books.uid}`,
    });
    expect(repair.structuredContent).to.include({ outcome: 'staged' });
    const actions = (repair.structuredContent.plan as { actions: Array<{ kind: string; to_ledger_entry_id?: string }> })
      .actions;
    expect(actions.map((a) => [a.kind, a.to_ledger_entry_id])).to.deep.equal([['move', t.older]]);
    const repairReplay = await call('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage', {
      token: alice,
      body: t.repair,
      headers: { 'idempotency-key': `mcp-rep-${t.books.uid}` },
    });
    expect(repair.structuredContent).to.deep.equal(structuredOf(repairReplay));
    expectValidOutput('stage_ledger_link_repair', repair.structuredContent);
  });

  it("stage_journal_entry books a bank fee: the API's data for the same request, a refusal as an error result", async () => {
    const books = new Books();
    const account = books.account();
    const fee = books.txn(account, -350, { counterparty_id: books.cp('bank') });
    const receipt = books.doc();
    const s = await stack();
    await s.load(books.file);
    const token = await s.token(books.orgId, ['ledger:stage', 'staged:read'], 'alice');
    const session = await startMcp({ url, token });
    sessions.push(session);
    const body = bankFeeEntry(books.cp('bank'), { bank_transaction_id: fee, document_id: receipt });
    const staged = await session.call('stage_journal_entry', { ...body, idempotency_key: `mcp-je-${books.uid}` });
    expect(staged.isError ?? false, JSON.stringify(staged.structuredContent)).to.equal(false);
    expect(staged.structuredContent).to.include({ outcome: 'staged', amount_minor: 350, currency: 'EUR' });
    const replay = await call('POST', '/api/v1/cli/ledger/entries/stage', {
      token,
      body,
      headers: { 'idempotency-key': `mcp-je-${books.uid}` },
    });
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(staged.structuredContent).to.deep.equal(structuredOf(replay));
    expectValidOutput('stage_journal_entry', staged.structuredContent);
    const unbalanced = await session.call('stage_journal_entry', {
      ...body,
      lines: [body.lines[0], { ...body.lines[1], credit_minor: 300 }],
    });
    expect(unbalanced.isError).to.equal(true);
    expect(unbalanced.structuredContent).to.deep.include({
      code: 'unbalanced_entry',
      details: { debit_total_minor: 350, credit_total_minor: 300 },
    });
  });

  it("the book read tools answer the API's data for the same request, within their output schemas", async () => {
    const account = t.repair.bank_account_id;
    const cases: Array<[tool: string, args: Record<string, unknown>, path: string]> = [
      ['list_bank_accounts', {}, '/api/v1/cli/bank-accounts'],
      ['get_bank_account', { bank_account_id: account }, `/api/v1/cli/bank-accounts/${account}`],
      [
        'list_bank_transactions',
        { bank_account_id: account, limit: 1 },
        `/api/v1/cli/bank-transactions?bank_account_id=${account}&limit=1`,
      ],
      ['list_ledger_entries', { open: 'true', limit: 2 }, '/api/v1/cli/ledger/entries?open=true&limit=2'],
      ['list_ledger_accounts', { limit: 1 }, '/api/v1/cli/ledger/accounts?limit=1'],
      ['get_ledger_entry', { entry_id: t.older }, `/api/v1/cli/ledger/entries/${t.older}`],
      ['list_counterparties', { bank_account_id: account }, `/api/v1/cli/counterparties?bank_account_id=${account}`],
      ['get_trial_balance', { as_of: '2026-06-30' }, '/api/v1/cli/ledger/trial-balance?as_of=2026-06-30'],
      ['list_inbox_documents', { status: 'open' }, '/api/v1/cli/bookkeeping/inbox/documents?status=open'],
      ['list_closed_periods', { limit: 5 }, '/api/v1/cli/periods?limit=5'],
      ['get_bank_transaction', { bank_transaction_id: t.repairTxn }, `/api/v1/cli/bank-transactions/${t.repairTxn}`],
      [
        'suggest_matches',
        { bank_transaction_id: t.repairTxn, limit: 2 },
        `/api/v1/cli/bank-transactions/${t.repairTxn}/match-suggestions?limit=2`,
      ],
      [
        'get_inbox_document',
        { document_id: t.documents[1] },
        `/api/v1/cli/bookkeeping/inbox/documents/${t.documents[1]}`,
      ],
    ];
    for (const [tool, args, path] of cases) {
      const result = await mcp.call(tool, args);
      const api = await call('GET', path, { token: alice });
      expect(api.status, `${tool}: ${JSON.stringify(api.body)}`).to.equal(200);
      expect(withoutRequestId(result.structuredContent), tool).to.deep.equal(withoutRequestId(structuredOf(api)));
      expectValidOutput(tool, result.structuredContent);
    }
    expect(tools.get('list_bank_transactions')!.annotations).to.include({ readOnlyHint: true });
  });

  it('decline_match_suggestion records a decline; suggest_matches then counts it', async () => {
    const declined = await mcp.call('decline_match_suggestion', {
      bank_transaction_id: t.repairTxn,
      document_id: t.documents[1],
    });
    expect(declined.structuredContent).to.include({ bank_transaction_id: t.repairTxn, declined: 1 });
    expectValidOutput('decline_match_suggestion', declined.structuredContent);
    const suggested = await mcp.call('suggest_matches', { bank_transaction_id: t.repairTxn });
    expect(suggested.structuredContent).to.include({ declined: 1 });
    expectValidOutput('suggest_matches', suggested.structuredContent);
  });

  it("each read tool answers the API's data for the same request; the resource template reads a staged operation", async () => {
    const duplicates = await mcp.call('list_inbox_duplicates', { limit: 1 });
    const duplicatesApi = await call('GET', '/api/v1/cli/bookkeeping/inbox/duplicates?limit=1', { token: alice });
    expect(withoutRequestId(duplicates.structuredContent)).to.deep.equal(withoutRequestId(structuredOf(duplicatesApi)));
    expect((duplicates.structuredContent.groups as unknown[]).length).to.equal(1);
    expect(duplicates.structuredContent.next_cursor).to.be.a('string');
    expectValidOutput('list_inbox_duplicates', duplicates.structuredContent);

    const list = await mcp.call('list_staged_operations', { kind: 'ledger_reversal', status: 'staged' });
    const listApi = await call('GET', '/api/v1/cli/staged-operations?kind=ledger_reversal&status=staged', {
      token: alice,
    });
    expect(withoutRequestId(list.structuredContent)).to.deep.equal(withoutRequestId(structuredOf(listApi)));
    const items = list.structuredContent.items as Array<{ staged_operation_id: string }>;
    expect(items).to.have.length.above(0);
    expectValidOutput('list_staged_operations', list.structuredContent);

    const id = items[0]!.staged_operation_id;
    const one = await mcp.call('get_staged_operation', { id });
    const oneApi = await call('GET', `/api/v1/cli/staged-operations/${id}`, { token: alice });
    expect(withoutRequestId(one.structuredContent)).to.deep.equal(withoutRequestId(structuredOf(oneApi)));
    expectValidOutput('get_staged_operation', one.structuredContent);

    // The approval policy in force (docs/design/staged-lifecycle.md "Approval policies"): version 0 here.
    const policy = await mcp.call('get_approval_policy', {});
    const policyApi = await call('GET', '/api/v1/cli/approval-policy', { token: alice });
    expect(withoutRequestId(policy.structuredContent)).to.deep.equal(withoutRequestId(structuredOf(policyApi)));
    expect(policy.structuredContent).to.include({ version: 0, agents_may_approve: true });
    expectValidOutput('get_approval_policy', policy.structuredContent);

    const templates = await mcp.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((r) => r.uriTemplate)).to.deep.equal(['bookstage://staged-operations/{id}']);
    const resource = await mcp.client.readResource({ uri: `bookstage://staged-operations/${id}` });
    expect(resource.contents).to.have.length(1);
    expect(resource.contents[0]).to.include({
      uri: `bookstage://staged-operations/${id}`,
      mimeType: 'application/json',
    });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).to.deep.equal(oneApi.body.data);
    const missing = await mcp.client.readResource({ uri: 'bookstage://staged-operations/stg_missing0' }).then(
      () => null,
      (err: McpError) => err,
    );
    expect(missing?.code).to.equal(-32002);
    expect(missing?.message).to.include('not_found');
  });

  it('a refusal is a tool error with the code, message, retryable and details (reversing a reversed entry)', async () => {
    const refused = await mcp.call('stage_ledger_reversal', { entry_id: t.reversed });
    expect(refused.isError).to.equal(true);
    expect(refused.structuredContent).to.deep.include({
      code: 'already_reversed',
      status: 409,
      retryable: false,
      details: { ledger_entry_id: t.reversed, reversed_by: `le_${t.books.uid}_rev` },
    });
    expect(refused.structuredContent.message).to.be.a('string');
    expect(refused.structuredContent.request_id).to.be.a('string');
    expect((refused.content[0] as { text: string }).text).to.match(
      /^Refused: already_reversed \(HTTP 409, not retryable\)/,
    );
    expectValidOutput('stage_ledger_reversal', refused.structuredContent);
  });

  it("a call that outlives its wait answers pending with the job_id; get_job later answers the job's result", async () => {
    // With no worker the job cannot finish first: wait=0 answers the result when it is already there.
    const s = await stack();
    await s.stopWorker();
    let pending: Awaited<ReturnType<McpSession['call']>>;
    try {
      pending = await mcp.call('stage_ledger_reversal', { entry_id: t.pendingEntry, wait_seconds: 0 });
      const queued = await mcp.call('get_job', { job_id: pending.structuredContent.job_id });
      expect(queued.structuredContent.outcome).to.equal('pending');
    } finally {
      await s.startWorker();
    }
    expect(pending.isError ?? false).to.equal(false);
    expect(pending.structuredContent.outcome).to.equal('pending');
    const jobId = pending.structuredContent.job_id as string;
    expect(jobId).to.match(/^job_/);
    expect((pending.content[0] as { text: string }).text).to.include(`Call get_job with job_id "${jobId}"`);
    expectValidOutput('stage_ledger_reversal', pending.structuredContent);

    let job = await mcp.call('get_job', { job_id: jobId });
    for (let i = 0; i < 100 && job.structuredContent.outcome === 'pending'; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      job = await mcp.call('get_job', { job_id: jobId });
    }
    expect(job.structuredContent).to.include({ outcome: 'staged' });
    expect((job.structuredContent.plan as { ledger_entry_id: string }).ledger_entry_id).to.equal(t.pendingEntry);
    const jobApi = await call('GET', `/api/v1/cli/jobs/${jobId}`, { token: alice });
    expect(withoutRequestId(job.structuredContent)).to.deep.equal(withoutRequestId(structuredOf(jobApi)));
    expectValidOutput('get_job', job.structuredContent);
  });

  it('the same idempotency_key twice stages one operation', async () => {
    const key = `mcp-twice-${t.books.uid}`;
    const first = await mcp.call('stage_ledger_reversal', { entry_id: t.keyedEntry, idempotency_key: key });
    const second = await mcp.call('stage_ledger_reversal', { entry_id: t.keyedEntry, idempotency_key: key });
    expect(first.structuredContent.outcome).to.equal('staged');
    expect(second.structuredContent).to.deep.equal(first.structuredContent);
    const count = await countStagedWithPlan({ ledger_entry_id: t.keyedEntry });
    expect(count).to.equal(1);
  });

  it("list_events answers the API's feed page for the same query: after a staging, its staged_operation.staged event is there", async () => {
    const staged = await mcp.call('stage_ledger_reversal', { entry_id: t.eventEntry });
    expect(staged.structuredContent.outcome, JSON.stringify(staged.structuredContent)).to.equal('staged');
    const id = staged.structuredContent.staged_operation_id as string;
    type Page = {
      items: Array<{ type: string; data: { staged_operation: { staged_operation_id: string; status: string } } }>;
    };
    // An event shows 2 s after its transition (docs/reference/webhooks.md "Written with the transition (the outbox)").
    let events = await mcp.call('list_events', { type: 'staged_operation.staged', limit: 100 });
    const ours = () =>
      (events.structuredContent as unknown as Page).items.filter(
        (e) => e.data.staged_operation.staged_operation_id === id,
      );
    for (let i = 0; i < 100 && ours().length === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      events = await mcp.call('list_events', { type: 'staged_operation.staged', limit: 100 });
    }
    expect(events.isError ?? false, JSON.stringify(events.structuredContent)).to.equal(false);
    expect(ours().map((e) => [e.type, e.data.staged_operation.status])).to.deep.equal([
      ['staged_operation.staged', 'staged'],
    ]);
    // Every staging of this file came before this one: their events have settled too, so the API's page is the same.
    const api = await call('GET', '/api/v1/cli/events?type=staged_operation.staged&limit=100', { token: alice });
    expect(api.status, JSON.stringify(api.body)).to.equal(200);
    expect(withoutRequestId(events.structuredContent)).to.deep.equal(withoutRequestId(structuredOf(api)));
    expectValidOutput('list_events', events.structuredContent);
  });

  it('offers no apply tool without --allow-apply (calling it fails); with it, applies an approved operation', async () => {
    const refused = await mcp.client.callTool({ name: 'apply_staged_operation', arguments: { id: 'stg_0123' } }).then(
      () => null,
      (err: Error) => err,
    );
    expect(refused?.message).to.include('apply_staged_operation not found');

    const applier = await startMcp({ url, token: alice }, ['--allow-apply']);
    sessions.push(applier);
    const offered = (await applier.client.listTools()).tools;
    expect(offered.map((tool) => tool.name).sort()).to.deep.equal([...DEFAULT_TOOLS, 'apply_staged_operation'].sort());
    const applyTool = offered.find((tool) => tool.name === 'apply_staged_operation')!;
    expect(applyTool.annotations).to.include({ destructiveHint: true, readOnlyHint: false });

    const staged = await applier.call('stage_ledger_reversal', {
      entry_id: t.applyEntry,
      reason: 'applied through MCP',
    });
    const id = staged.structuredContent.staged_operation_id as string;
    const approved = await approve(bob, id); // another actor: the org requires a distinct approver
    expect(approved.status).to.equal(200);
    const applied = await applier.call('apply_staged_operation', { id });
    expect(applied.isError ?? false, JSON.stringify(applied.structuredContent)).to.equal(false);
    expect(applied.structuredContent).to.include({ staged_operation_id: id, status: 'applied' });
    const validate = hostAjv.compile(applyTool.outputSchema!);
    expect(validate(applied.structuredContent), JSON.stringify(validate.errors)).to.equal(true);
    expect(await doc('ledger_entries', t.applyEntry)).to.include({ status: 'reversed' });
  });

  it('--allow-review adds approve and reject: self-approval is refused with its code, a reject with a note ends the operation', async () => {
    const reviewer = await startMcp({ url, token: alice }, ['--allow-review']);
    sessions.push(reviewer);
    const names = (await reviewer.client.listTools()).tools.map((tool) => tool.name).sort();
    // Governance changes come with the review tools: a period close and a policy change.
    expect(names).to.deep.equal(
      [
        ...DEFAULT_TOOLS,
        'approve_staged_operation',
        'reject_staged_operation',
        'stage_approval_policy',
        'stage_period_close',
      ].sort(),
    );

    const staged = await reviewer.call('stage_ledger_reversal', { entry_id: t.rejectEntry });
    const id = staged.structuredContent.staged_operation_id as string;
    const self = await reviewer.call('approve_staged_operation', { id });
    expect(self.isError).to.equal(true);
    expect(self.structuredContent).to.include({ code: 'self_approval_forbidden', status: 403 });
    const rejected = await reviewer.call('reject_staged_operation', { id, note: 'not a duplicate after all' });
    expect(rejected.structuredContent).to.include({ staged_operation_id: id, status: 'rejected' });
  });

  it('without an idempotency_key, a retry after a dropped connection reuses the key the server made and stages once', async () => {
    const proxy = await startDropProxy(new URL(url));
    try {
      const dropped = await startMcp({ url: proxy.url, token: alice });
      sessions.push(dropped);
      const staged = await dropped.call('stage_ledger_reversal', { entry_id: t.droppedEntry });
      expect(staged.structuredContent).to.include({ outcome: 'staged' });
      expect(proxy.connections()).to.equal(2);
      expect(dropped.stderr()).to.match(/\(same Idempotency-Key bookstage-mcp-[0-9a-f-]{36}\); retry 1\/3 in /);
      const count = await countStagedWithPlan({ ledger_entry_id: t.droppedEntry });
      expect(count).to.equal(1);
    } finally {
      await proxy.close();
    }
  });

  it('wrote nothing but JSON-RPC messages to stdout in any session', () => {
    expect(sessions).to.have.length(5);
    for (const session of sessions) expect(session.protocolErrors.map((e) => e.message)).to.deep.equal([]);
  });
});
