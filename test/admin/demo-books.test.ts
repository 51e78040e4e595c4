// The demo books (`admin books demo`, `npm start`): seed 1, size 500 holds
// every case the product handles, shown by running the four operations on
// the examples shared/demo/demo-examples.ts finds in them, through the real
// API and worker. Plus: the same seed gives the same bytes.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BooksFile } from '../../shared/domain/books-file.js';
import { generateBooks } from '../../shared/demo/books-generator.js';
import { accountCodesUsed, uncoveredCodes } from '../../shared/domain/chart-of-accounts.js';
import {
  demoBooksFromFile,
  findDemoExamples,
  RECONCILE_FAILURES,
  type DemoExamples,
} from '../../shared/demo/demo-examples.js';
import type { DuplicatesPageData, LinkRepairData, ReconcileData, ReversalData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { reject } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';

const run = promisify(execFile);
const adminJs = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'admin.js');
const ORG = 'demo_books_test';
const REPAIR = '/api/v1/cli/bank-matches/ledger-link-repair/stage';
const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';
const reversePath = (id: string): string => `/api/v1/cli/ledger/entries/${id}/reverse/stage`;
const today = (): string => new Date().toISOString().slice(0, 10);

describe('demo books: seed 1, size 500, through the real stack', function () {
  this.timeout(120_000);
  let file: BooksFile;
  let examples: DemoExamples;
  let alice: string;
  let bob: string;

  before(async () => {
    const s = await stack();
    // Loaded by the command itself, as `npm start` and an operator do.
    const { stdout } = await run(
      process.execPath,
      [adminJs, 'books', 'demo', '--org', ORG, '--size', '500', '--seed', '1'],
      { env: { ...process.env, MONGO_URL: s.config.mongoUrl } },
    );
    expect(JSON.parse(stdout)).to.have.property('org_id', ORG);
    file = generateBooks({ org_id: ORG, size: 500, seed: 1 });
    examples = findDemoExamples(demoBooksFromFile(file), today());
    alice = await s.token(ORG, ['bank:stage', 'ledger:stage', 'inbox:read', 'staged:read'], 'alice');
    bob = await s.token(ORG, ['staged:read', 'staged:approve'], 'bob');
  });

  /** Staged answers take plan locks; rejecting releases them for the next case. */
  async function stagedThenRejected<P>(res: {
    status: number;
    body: { data: { outcome: string; staged_operation_id: string; plan: P } };
  }): Promise<P> {
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.outcome).to.equal('staged');
    expect((await reject(bob, res.body.data.staged_operation_id, 'demo test')).status).to.equal(200);
    return res.body.data.plan;
  }

  it('link repair: one pair where FIFO moves links, one blocked by a frozen link to a reversed entry, one already in order', async () => {
    const { moves, blocked, noop } = examples.repair;
    expect(moves && blocked && noop, JSON.stringify(examples.repair)).to.not.equal(null);

    const staged = await call<LinkRepairData>('POST', REPAIR, {
      token: alice,
      body: { bank_account_id: moves!.bank_account_id, counterparty_id: moves!.counterparty_id },
    });
    const plan = await stagedThenRejected(staged);
    expect(plan.actions.filter((a) => a.kind === 'move'))
      .to.have.length(moves!.moves)
      .and.length.greaterThan(0);

    const refused = await call<LinkRepairData>('POST', REPAIR, {
      token: alice,
      body: { bank_account_id: blocked!.bank_account_id, counterparty_id: blocked!.counterparty_id },
    });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(200);
    expect(refused.body.data).to.include({ outcome: 'blocked', plan: null });
    expect(refused.body.data.blockers.map((b) => b.code)).to.include.members([
      'frozen_link_to_reversed_entry',
      'frozen_link_to_other_counterparty',
    ]);

    const same = await call<LinkRepairData>('POST', REPAIR, {
      token: alice,
      body: { bank_account_id: noop!.bank_account_id, counterparty_id: noop!.counterparty_id },
    });
    expect(same.status, JSON.stringify(same.body)).to.equal(200);
    expect(same.body.data.outcome).to.equal('noop');
    expect(same.body.data.plan.actions).to.deep.equal([]);
  });

  it('reconciliation: a statement that reconciles, and one failing each check in turn', async () => {
    const { ok, failing } = examples.reconcile;
    expect(ok).to.not.equal(null);
    const plan = await stagedThenRejected(await call<ReconcileData>('POST', RECONCILE, { token: alice, body: ok }));
    expect(plan.transactions).to.have.length(ok!.transaction_ids.length).and.length.greaterThan(1);
    expect(plan.left_out).to.deep.equal({ count: 0, first_ids: [] });
    expect(plan.opening_balance_minor).to.be.greaterThan(0);

    expect(Object.keys(failing)).to.have.members([...RECONCILE_FAILURES]);
    for (const code of RECONCILE_FAILURES) {
      const res = await call('POST', RECONCILE, { token: alice, body: failing[code] });
      expect(res.body.error?.code, `${code}: ${JSON.stringify(res.body)}`).to.equal(code);
    }
  });

  it('reversal: an entry with open links is staged (its links unlinked), an already-reversed one is refused (409)', async () => {
    const { reversible, already_reversed: reversed } = examples.reversal;
    const plan = await stagedThenRejected(
      await call<ReversalData>('POST', reversePath(reversible!), { token: alice, body: { reason: 'demo test' } }),
    );
    expect(plan.ledger_entry_id).to.equal(reversible);
    expect(plan.actions.length).to.be.greaterThan(0);

    const refused = await call('POST', reversePath(reversed!), { token: alice, body: { reason: 'demo test' } });
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('already_reversed');
  });

  it('inbox: at least 10 duplicate groups of each rule, 10 near matches (a number written differently), and near misses (4–6 days apart) left ungrouped', async () => {
    const groups: DuplicatesPageData['groups'] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? 'limit=100' : `limit=100&cursor=${encodeURIComponent(cursor)}`;
      const res = await call<DuplicatesPageData>('GET', `/api/v1/cli/bookkeeping/inbox/duplicates?${query}`, {
        token: alice,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      groups.push(...res.body.data.groups);
      cursor = res.body.data.next_cursor;
    } while (cursor !== null);

    const byRule = new Map<string, number>();
    for (const g of groups)
      for (const rule of new Set(g.documents.flatMap((d) => d.reasons.map((r) => r.rule))))
        byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
    expect(Object.fromEntries(byRule)).to.have.all.keys('same_file', 'same_invoice_number', 'same_amount_date_vendor');
    for (const [rule, count] of byRule) expect(count, rule).to.be.at.least(10);

    const docById = new Map(file.inbox_documents.map((d) => [d.id, d]));
    const nearMatches = groups.filter((g) =>
      g.documents.some((d) =>
        d.reasons.some(
          (r) =>
            r.rule === 'same_invoice_number' &&
            docById.get(r.with_document_id)!.extracted.invoice_number !==
              docById.get(d.document_id)!.extracted.invoice_number,
        ),
      ),
    );
    expect(nearMatches.length).to.be.at.least(10);

    // Near misses (numbers NM-…, 4–6 days after a look-alike): most meet no member of any group (a real look-alike of their own may still tie one in).
    const nearMisses = file.inbox_documents.filter((d) => d.extracted.invoice_number?.startsWith('NM-'));
    expect(nearMisses.length).to.be.at.least(10);
    const grouped = new Set(groups.flatMap((g) => g.documents.map((d) => d.document_id)));
    expect(nearMisses.filter((d) => !grouped.has(d.id)).length).to.be.at.least(5);
  });
});

describe('demo books generator: determinism', () => {
  it('the same seed gives byte-identical books, another seed other books', () => {
    const a = JSON.stringify(generateBooks({ org_id: ORG, size: 500, seed: 1 }));
    expect(JSON.stringify(generateBooks({ org_id: ORG, size: 500, seed: 1 }))).to.equal(a);
    expect(JSON.stringify(generateBooks({ org_id: ORG, size: 500, seed: 2 }))).to.not.equal(a);
  });

  it('carries a chart of accounts covering every code it uses, at every size, with one inactive account', async () => {
    for (const size of [1, 39, 40, 500]) {
      const books = generateBooks({ org_id: ORG, size, seed: 3 });
      const codes = new Set((books.accounts ?? []).map((a) => a.code));
      expect(uncoveredCodes(codes, accountCodesUsed(books)), `size ${size}`).to.deep.equal([]);
    }
    // As stored by the command: the read lists it by code, the inactive account included.
    const token = await (await stack()).token(ORG, ['books:read']);
    const res = await call<{ items: Array<{ code: string; active: boolean }> }>('GET', '/api/v1/cli/ledger/accounts', {
      token,
    });
    expect(res.body.data.items.map((a) => `${a.code}:${a.active}`)).to.deep.equal([
      '1200:true',
      '1210:true',
      '1400:true',
      '1600:true',
      '4000:true',
      '4980:false',
      '6855:true',
      '8400:true',
    ]);
  });
});
