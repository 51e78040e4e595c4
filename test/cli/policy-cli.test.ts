// bookstage policy show|stage (docs/guide/cli.md "Approval policy") against the
// real stack: show prints the policy in force, stage sends the file as the body
// and prints the staged change; a bad rule is exit 2 with its pointer.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';
import { runCli } from './run-cli.js';

function bodyFile(body: unknown): string {
  const path = join(tmpdir(), `policy-${randomBytes(4).toString('hex')}.json`);
  writeFileSync(path, JSON.stringify(body));
  return path;
}

describe('bookstage policy', function () {
  this.timeout(60_000);

  it('show prints version 0; stage stages the file (dry run first); a bad rule is exit 2 with its pointer', async () => {
    const s = await stack();
    const books = new Books();
    await s.load(books.file);
    const conn = { url: s.baseUrl, token: await s.token(books.orgId, ['policy:stage', 'staged:read'], 'alice') };

    const shown = await runCli(['policy', 'show'], conn);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.include('Approval policy version 0 (in force); agents may approve: yes');

    const policy = {
      rules: [{ kinds: ['ledger_reversal'], min_amount_minor: 500_000, approvals: 2, approvers: 'people' }],
      agents_may_approve: true,
      unattended: [],
    };
    const dry = await runCli(
      ['policy', 'stage', '--body', bodyFile(policy), '--dry-run', '--no-agents-may-approve'],
      conn,
    );
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.include('Approval policy version 1 (replaces version 0); agents may approve: no');
    expect(await s.db.collection('staged_operations').countDocuments({ org_id: books.orgId })).to.equal(0);

    const staged = await runCli(['policy', 'stage', '--body', bodyFile(policy)], conn);
    expect(staged.code, staged.stderr).to.equal(0);
    expect(staged.stdout).to.match(/^Staged approval policy change stg_[0-9a-f]+\./);
    expect(staged.stdout).to.include('ledger_reversal');
    expect(await s.db.collection('staged_operations').countDocuments({ org_id: books.orgId })).to.equal(1);

    const id = /stg_[0-9a-f]+/.exec(staged.stdout)![0];
    const approver = await s.token(books.orgId, ['staged:read', 'staged:approve'], 'bob');
    const approvedBefore = await runCli(['staged', 'show', id], { ...conn, token: approver });
    expect(approvedBefore.stdout).to.include('Approvals: 0 of 1, people only');
    const approved = await runCli(['staged', 'approve', id], { ...conn, token: approver });
    expect(approved.code, approved.stderr).to.equal(0);
    expect(approved.stdout).to.include('Approvals: 1 of 1, people only: bob');

    const bad = await runCli(
      ['policy', 'stage', '--body', bodyFile({ ...policy, rules: [{ ...policy.rules[0], approvals: 9 }] })],
      conn,
    );
    expect(bad.code).to.equal(2);
    expect(bad.stdout + bad.stderr).to.include('/rules/0/approvals');
  });
});
