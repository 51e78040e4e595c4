// The review page under an approval policy (docs/guide/review-page.md "Which
// actions are shown"; docs/design/staged-lifecycle.md "Approving under a
// policy") in a real browser against the real stack: the operation shows what
// approving it takes and who approved ("1 of 2 approvals, people only: bob");
// a viewer whose approval the API would refuse (an agent where people only
// count, an actor who approved already) sees why and no Approve button; one
// who may approve approves from the page. axe-core finds no violation at all
// (the issue asks these views clean, not only free of serious ones).
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { setPolicy } from '../helpers/approval-policy.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { approve } from '../helpers/staged.js';
import { chromiumPath, launch, SKIP_MESSAGE } from './chromium.js';
import { axeViolations, screenshot } from './page-checks.js';

describe('the review page under an approval policy', function () {
  this.timeout(90_000);
  let browser: Browser | null = null;
  let baseUrl: string;
  let id: string;
  const tokens: Record<string, string> = {};

  before(async function () {
    const executable = chromiumPath();
    if (!executable) {
      console.log(`      ${SKIP_MESSAGE}`);
      this.skip();
    }
    const s = await stack();
    baseUrl = s.baseUrl;
    const books = new Books();
    const entry = books.invoice(4_500, { entry_date: '2026-02-03' });
    await s.load(books.file);
    await setPolicy(books.orgId, {
      rules: [{ kinds: ['*'], approvals: 2, approvers: 'people' }],
      agents_may_approve: true,
      unattended: [],
    });
    const review = ['staged:read', 'staged:approve', 'staged:apply'] as const;
    tokens.alice = await s.token(books.orgId, ['ledger:stage', 'staged:read'], 'alice');
    for (const actor of ['bob', 'dave', 'agent:reviewer'])
      tokens[actor] = await s.token(books.orgId, [...review], actor);
    const staged = await call<{ staged_operation_id: string }>(
      'POST',
      `/api/v1/cli/ledger/entries/${entry}/reverse/stage`,
      {
        token: tokens.alice,
        body: { reversal_date: '2026-03-01', reason: 'booked twice' },
      },
    );
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    id = staged.body.data.staged_operation_id;
    expect((await approve(tokens.bob!, id)).status).to.equal(200);
    browser = await launch(executable);
  });

  after(async () => {
    await browser?.close();
  });

  async function openAs(actor: string, operationId = id, token = tokens[actor]!): Promise<Page> {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${baseUrl}/review`);
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('link', { name: 'Staged operations' }).waitFor();
    await page.goto(`${baseUrl}/review#/operation/${operationId}`);
    await page.getByTestId('approval').waitFor();
    return page;
  }

  it('an agent where people only count sees why, and no Approve button', async () => {
    const page = await openAs('agent:reviewer');
    expect(await page.getByTestId('approval').textContent()).to.equal('1 of 2 approvals, people only: bob');
    expect(await page.getByTestId('why-no-approve').textContent())
      .to.include('You (agent:reviewer) act as an agent')
      .and.include('people only');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).to.equal(0);
    expect(await axeViolations(page), 'axe on the agent view').to.deep.equal([]);
    await screenshot(page, 'approval-agent');
    await page.close();
  });

  it('an agent where the policy admits no agent, under a rule for anyone, sees why, and no Approve button', async () => {
    const s = await stack();
    const books = new Books();
    const entry = books.invoice(2_000, { entry_date: '2026-02-04' });
    await s.load(books.file);
    const version = await setPolicy(books.orgId, {
      rules: [{ kinds: ['*'], approvals: 1, approvers: 'any' }],
      agents_may_approve: false,
      unattended: [],
    });
    const alice = await s.token(books.orgId, ['ledger:stage', 'staged:read'], 'alice');
    const agent = await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'agent:reviewer');
    const staged = await call<{ staged_operation_id: string }>(
      'POST',
      `/api/v1/cli/ledger/entries/${entry}/reverse/stage`,
      {
        token: alice,
        body: { reversal_date: '2026-03-01', reason: 'booked twice' },
      },
    );
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const opId = staged.body.data.staged_operation_id;
    // The API refuses this agent's approval: the page must not offer it.
    const refused = await call('POST', `/api/v1/cli/staged-operations/${opId}/approve`, { token: agent, body: {} });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
    expect(refused.body.error?.code).to.equal('approver_not_allowed');

    const page = await openAs('agent:reviewer', opId, agent);
    expect(await page.getByTestId('approval').textContent()).to.equal('0 of 1 approval');
    expect(await page.getByTestId('why-no-approve').textContent())
      .to.include('You (agent:reviewer) act as an agent')
      .and.include(`approval policy (version ${version}) admits no agent's approval`);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).to.equal(0);
    expect(await axeViolations(page), 'axe on the agent view under agents_may_approve false').to.deep.equal([]);
    await page.close();
  });

  it('an actor who approved already sees why; another person approves from the page and it is approved', async () => {
    const bob = await openAs('bob');
    expect(await bob.getByTestId('why-no-approve').textContent()).to.include(
      'You (bob) approved this operation already',
    );
    expect(await bob.getByRole('button', { name: 'Approve' }).count()).to.equal(0);
    await bob.close();

    const dave = await openAs('dave');
    expect(await dave.getByTestId('why-no-approve').count()).to.equal(0);
    await dave.getByRole('button', { name: 'Approve' }).click();
    await dave.getByTestId('status').filter({ hasText: 'approved' }).waitFor();
    expect(await dave.getByTestId('approval').textContent()).to.equal('2 of 2 approvals, people only: bob, dave');
    expect(await axeViolations(dave), 'axe on the approved view').to.deep.equal([]);
    await screenshot(dave, 'approval-approved');
    await dave.close();
  });
});
