// Schemathesis fuzzes every operation of the live API from its own OpenAPI
// document (GET /api/v1/openapi.json) and checks each answer: no 5xx, the
// status is documented, the content type is documented, the body matches the
// documented schema. Schemathesis is installed by this run into .cache/
// (scripts/python-tools.ts). Bounded: a fixed number of examples per
// operation, a fixed seed (SCHEMATHESIS_SEED to try another) so that CI is
// repeatable, and a few minutes of time-out.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ensureSchemathesis } from '../../scripts/python-tools.js';
import { TOKEN_SCOPES } from '../../shared/domain/token-scopes.js';
import { Books } from '../helpers/books.js';
import type { ReversalData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
];
const MAX_EXAMPLES = '40';

function run(bin: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('schemathesis against the live API', function () {
  this.timeout(10 * 60_000);

  it('finds no server error, undocumented status, content type or body on any operation', async () => {
    const bin = ensureSchemathesis();
    const s = await stack();
    // Real books, so that the token's organisation exists and some calls reach the worker's checks.
    const books = new Books();
    const account = books.account();
    const linked = [books.linkedTxn(account, 12_000), books.linkedTxn(account, -4_500, { booking_date: '2026-02-12' })];
    const openInvoice = books.invoice(3_000);
    const sha = 'ab'.repeat(32);
    books.doc({ file: { sha256: sha, name: 'x.pdf', size: 1, mime: 'application/pdf' } });
    books.doc({
      file: { sha256: sha, name: 'y.pdf', size: 1, mime: 'application/pdf' },
      received_at: '2026-02-03T09:00:00.000Z',
    });
    const reversible = [books.invoice(2_000), books.invoice(2_500)];
    await s.load(books.file);
    const token = await s.token(books.orgId, [...TOKEN_SCOPES], 'agent:schemathesis');
    // Staged operations to review: one its own (approve answers self_approval_forbidden), one another actor's (approve succeeds).
    const other = await s.token(books.orgId, ['ledger:stage'], 'carol');
    const staged: string[] = [];
    for (const [entry, by] of [
      [reversible[0]!, token],
      [reversible[1]!, other],
    ] as const) {
      const answer = await call<ReversalData>('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
        token: by,
        body: {},
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      staged.push(answer.body.data.staged_operation_id);
    }

    const cwd = mkdtempSync(join(tmpdir(), 'bookstage-schemathesis-'));
    // Half the generated ids are real ones of these books, so that calls get past not_found into the worker's checks.
    const dictionary = (name: string, values: string[]): string =>
      `[dictionaries.${name}]\nvalues = ${JSON.stringify(values)}\n`;
    writeFileSync(
      join(cwd, 'schemathesis.toml'),
      [
        dictionary('entries', [...linked.map((l) => l.entry), openInvoice]),
        dictionary('accounts', [account]),
        dictionary(
          'transactions',
          linked.map((l) => l.txn),
        ),
        dictionary('counterparties', [books.cp('a')]),
        dictionary('staged', staged),
        '[parameters]',
        '"path.entry_id" = { dictionary = "entries", probability = 0.5 }',
        '"body.bank_account_id" = { dictionary = "accounts", probability = 0.5 }',
        '"body.counterparty_id" = { dictionary = "counterparties", probability = 0.5 }',
        '"body.transaction_ids[*]" = { dictionary = "transactions", probability = 0.5 }',
        '"path.id" = { dictionary = "staged", probability = 0.5 }',
        '',
      ].join('\n'),
    );
    const report = process.env.SCHEMATHESIS_REPORT_DIR
      ? ['--report', 'har,junit', '--report-dir', process.env.SCHEMATHESIS_REPORT_DIR]
      : [];
    try {
      const result = await run(
        bin,
        [
          '--config-file',
          join(cwd, 'schemathesis.toml'),
          'run',
          `${s.baseUrl}/api/v1/openapi.json`,
          '--url',
          s.baseUrl,
          '--checks',
          CHECKS.join(','),
          '--header',
          `Authorization: Bearer ${token}`,
          '--max-examples',
          MAX_EXAMPLES,
          '--seed',
          process.env.SCHEMATHESIS_SEED ?? '20260101',
          // One worker: with two, Schemathesis 4.32.5's coverage phase now and then dies of
          // an internal KeyError in its own value cache (a tool bug, not an API answer).
          '--workers',
          '1',
          '--request-timeout',
          '30',
          '--no-shrink',
          '--output-sanitize',
          process.env.SCHEMATHESIS_REPORT_DIR ? 'false' : 'true',
          ...report,
        ],
        cwd,
      );
      if (process.env.SCHEMATHESIS_VERBOSE) process.stderr.write(result.output);
      expect(result.code, result.output.slice(-40_000)).to.equal(0);
      expect(result.output).to.match(/passed/i);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
