// The staging tools of `bookstage mcp` with `dry_run: true`, driven by the
// MCP SDK's own client (docs/guide/agents.md, docs/reference/http-api.md §6.6):
// the plan, its hash and summary as the tool result, nothing staged.
import { expect } from 'chai';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TOKEN_SCOPES, type TokenScope } from '../../shared/domain/token-scopes.js';
import { Books } from '../helpers/books.js';
import { duplicatePair } from '../helpers/inbox.js';
import { apply, approve } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';
import { startMcp, type McpSession } from './mcp-client.js';

const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;
const hostAjv = addFormats(new Ajv({ strict: false, allErrors: true }));

const STAGING_TOOLS = [
  'stage_bank_match',
  'stage_bank_reconciliation',
  'stage_inbox_duplicates_resolution',
  'stage_journal_entry',
  'stage_ledger_link_repair',
  'stage_ledger_reversal',
  'stage_revert',
  'stage_statement_import',
];

describe('bookstage mcp: staging tools with dry_run', function () {
  this.timeout(60_000);
  let mcp: McpSession;
  let tools: Map<string, Tool>;
  let books: Books;
  let account: string;
  let linked: { txn: string; entry: string };
  let reversible: string;
  let importAccount: string;
  let match: { account: string; txn: string; entry: string };
  let fee: string;
  let duplicates: ReturnType<typeof duplicatePair>;
  let revertAccount: string;

  const expectValidOutput = (name: string, structured: unknown): void => {
    const validate = hostAjv.compile(tools.get(name)!.outputSchema!);
    expect(validate(structured), `${name}: ${JSON.stringify(validate.errors)}`).to.equal(true);
  };
  const operations = async (): Promise<number> =>
    (await stack()).db.collection('staged_operations').countDocuments({ org_id: books.orgId });

  before(async () => {
    const s = await stack();
    books = new Books();
    account = books.account({ opening_balance_minor: 10_000 });
    linked = books.linkedTxn(account, 12_000, { booking_date: '2026-02-10' });
    books.invoice(4_000, { entry_date: '2026-02-15' });
    books.txn(account, 4_000, { booking_date: '2026-03-05' });
    // On another account, so that the reversal's scope meets neither the reconciliation's nor the repair's.
    reversible = books.linkedTxn(books.account(), 900, { counterparty_id: books.cp('b') }).entry;
    importAccount = books.account();
    // A payment and its invoice on an account and counterparty of their own: outside every other call's scope.
    const matchAccount = books.account();
    match = {
      account: matchAccount,
      entry: books.invoice(2_500, { counterparty_id: books.cp('m') }),
      txn: books.txn(matchAccount, 2_500, { counterparty_id: books.cp('m') }),
    };
    // A bank fee on an account of its own, for the journal entry that books it.
    fee = books.txn(books.account(), -350, { counterparty_id: books.cp('bank') });
    duplicates = duplicatePair(books);
    revertAccount = books.account();
    await s.load(books.file);
    mcp = await startMcp({
      url: s.baseUrl,
      token: await s.token(books.orgId, TOKEN_SCOPES as unknown as TokenScope[]),
    });
    tools = new Map((await mcp.client.listTools()).tools.map((tool) => [tool.name, tool]));
  });

  after(async () => {
    await mcp.close();
  });

  it('every staging tool takes dry_run as a boolean', () => {
    expect([...tools.keys()].filter((n) => n.startsWith('stage_')).sort()).to.deep.equal(STAGING_TOOLS);
    for (const name of STAGING_TOOLS) {
      expect(
        (tools.get(name)!.inputSchema.properties as Record<string, { type: string }>).dry_run?.type,
        name,
      ).to.equal('boolean');
    }
  });

  it('each staging tool with dry_run: true answers the plan, hash and summary, valid against its output schema, and stages nothing; the real call has the same plan and hash', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      [
        'stage_bank_reconciliation',
        {
          bank_account_id: account,
          statement: { end_date: '2026-02-28', closing_balance_minor: 22_000, currency: 'EUR' },
          transaction_ids: [linked.txn],
        },
      ],
      ['stage_ledger_link_repair', { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-03-31' }],
      ['stage_ledger_reversal', { entry_id: reversible, reversal_date: '2026-03-01' }],
      [
        'stage_bank_match',
        {
          bank_account_id: match.account,
          matches: [{ bank_transaction_id: match.txn, ledger_entry_id: match.entry, amount_minor: 2_500 }],
        },
      ],
      [
        'stage_journal_entry',
        {
          entry_date: '2026-03-02',
          description: 'Bank fee',
          reference: 'FEE-1',
          counterparty_id: books.cp('bank'),
          currency: 'EUR',
          lines: [
            { account: '6855', debit_minor: 350, credit_minor: 0 },
            { account: '1600', debit_minor: 0, credit_minor: 350 },
          ],
          bank_transaction_id: fee,
        },
      ],
      [
        'stage_inbox_duplicates_resolution',
        { group_id: duplicates.group, resolution: 'archive_duplicates', keep_document_id: duplicates.a },
      ],
      [
        'stage_statement_import',
        {
          bank_account_id: importAccount,
          content: 'date,amount,name\n2026-11-03,12.50,Alpha\n',
          date_column: 'date',
          amount_column: 'amount',
          counterparty_column: 'name',
        },
      ],
    ];
    // A revert needs an applied operation: its own test below.
    expect(calls.map(([name]) => name).sort()).to.deep.equal(STAGING_TOOLS.filter((n) => n !== 'stage_revert'));
    for (const [name, args] of calls) {
      const dry = await mcp.call(name, { ...args, dry_run: true });
      expect(dry.isError, JSON.stringify(dry.structuredContent)).to.equal(undefined);
      expect(dry.structuredContent, name).to.include({ dry_run: true, outcome: 'staged' });
      expect(dry.structuredContent, name).to.not.have.property('staged_operation_id');
      expect(dry.structuredContent.summary, name).to.be.an('object');
      expect((dry.content[0] as { text: string }).text, name).to.match(/^Dry run: staging now would stage this plan/);
      expectValidOutput(name, dry.structuredContent);
      expect(await operations(), name).to.equal(0);
    }
    // Staged for real one after the other, each on its own scope.
    for (const [name, args] of calls) {
      const dry = await mcp.call(name, { ...args, dry_run: true });
      const real = await mcp.call(name, args);
      expect(real.structuredContent.outcome, `${name}: ${JSON.stringify(real.structuredContent)}`).to.equal('staged');
      expect(real.structuredContent.plan, name).to.deep.equal(dry.structuredContent.plan);
      expect(real.structuredContent.plan_hash, name).to.equal(dry.structuredContent.plan_hash);
    }
    expect(await operations()).to.equal(calls.length);
  });

  it('stage_revert with dry_run: true answers the revert of an applied import, and the real call the same plan', async () => {
    const s = await stack();
    const alice = await s.token(books.orgId, ['bank:stage'], 'alice');
    const bob = await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob');
    const imported = await fetch(
      `${s.baseUrl}/api/v1/cli/bank-accounts/${revertAccount}/statements/import/stage?format=csv&date_column=date&amount_column=amount`,
      { method: 'POST', headers: { authorization: `Bearer ${alice}` }, body: 'date,amount\n2026-11-03,9.50\n' },
    );
    expect(imported.status).to.equal(201);
    const id = ((await imported.json()) as { data: { staged_operation_id: string } }).data.staged_operation_id;
    expect((await approve(bob, id)).status).to.equal(200);
    expect((await apply(bob, id)).status).to.equal(200);
    const dry = await mcp.call('stage_revert', { id, dry_run: true });
    expect(dry.isError, JSON.stringify(dry.structuredContent)).to.equal(undefined);
    expect(dry.structuredContent).to.include({ dry_run: true, outcome: 'staged' });
    expectValidOutput('stage_revert', dry.structuredContent);
    const real = await mcp.call('stage_revert', { id });
    expect(real.structuredContent.outcome, JSON.stringify(real.structuredContent)).to.equal('staged');
    expect(real.structuredContent.plan).to.deep.equal(dry.structuredContent.plan);
    expectValidOutput('stage_revert', real.structuredContent);
  });

  it('dry_run must be a boolean: "true" is refused before any request', async () => {
    const refused = await mcp.call('stage_ledger_reversal', { entry_id: linked.entry, dry_run: 'true' });
    expect(refused.isError).to.equal(true);
    expect(refused.structuredContent.code).to.equal('validation_failed');
  });
});
