// A bank statement import (docs/guide/statement-import.md "Tests and benchmark"):
// a deterministic CAMT.053 file of `entries` booked entries staged through the
// real HTTP API on an account that already holds `accountSize` transactions,
// then approved and applied; against two floors measured in the same run:
// the project's parser plus the account's read as the job does them (called
// directly here), and a bare insertMany of the same documents.
import { pathOf } from '../../shared/contract/route-paths.js';
import { statementImportJournal } from '../../shared/kinds/statement-import/journal.js';
import type { BooksFile } from '../../shared/domain/books-file.js';
import { parseStatementFile } from '../../shared/kinds/statement-import/parse.js';
import type { StatementImportPlan } from '../../shared/kinds/statement-import/plan.js';
import { accountTransactionsForImport } from '../../shared/storage/statement-import-read.js';
import { load, tokenFor } from '../lib/data.js';
import { median, round, timed } from '../lib/stats.js';
import type { BenchEnv } from './round-trip.js';

export interface StatementImportResult {
  /** Booked entries in the file, and the account's transactions before the first import. */
  entries: number;
  /** Of them, new to the account (every hundredth is already there by its bank reference). */
  new_transactions: number;
  account_transactions: number;
  file_bytes: number;
  /** (a) The staging call until its answer (Prefer: wait). */
  stage_ms: number;
  stage_entries_s: number;
  /** (c) parseStatementFile + accountTransactionsForImport, called directly. */
  parse_and_read_ms: number;
  parse_ms: number;
  read_ms: number;
  stage_ratio: number;
  approve_ms: number;
  /** (b) The apply call (`Prefer: return=minimal`: the plan was reviewed) until the operation is applied; apply_entries_s counts the transactions it inserts. */
  apply_ms: number;
  apply_entries_s: number;
  /** (d) One insertMany of the same documents into an empty scratch collection. */
  insert_many_ms: number;
  /** (e) The same insertMany into bank_transactions itself (its indexes: what the apply's inserts pay), under other ids, removed after. */
  insert_many_indexed_ms: number;
  /** apply ÷ (d): the issue's ratio as first measured, against a collection without the books' indexes. */
  apply_ratio: number;
  /** apply ÷ (e): the apply against the same rows inserted through the driver with the books' indexes; the apply's own inserts go in SQL, two statements side by side on FerretDB (docs/design/performance.md "Statement import"). */
  apply_ratio_indexed: number;
}

const IBAN = 'DE89370400440532013000';
const ENTRIES_PER_STATEMENT = 250;
const COUNTERPARTIES = 200;
const importPath = (accountId: string): string => pathOf('statement_import.stage', { bank_account_id: accountId });

const day = (base: number, n: number): string => new Date(base + n * 86_400_000).toISOString().slice(0, 10);
const decimal = (minor: number): string => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
const cpName = (k: number): string => `Customer ${k} GmbH`;
const cpIban = (k: number): string =>
  `DE${String(10 + (k % 89)).padStart(2, '0')}5001051700${String(k).padStart(8, '0')}`;

/** An account with `n` transactions (2024–2025, bank references `EX-…`, 200 counterparties); no ledger. */
export function importAccountBooks(orgId: string, n: number): BooksFile {
  const account = `ba_${orgId}_imp`;
  const base = Date.UTC(2024, 0, 1);
  const transactions: BooksFile['bank_transactions'] = [];
  for (let i = 0; i < n; i += 1) {
    const k = (i * 7) % COUNTERPARTIES;
    const amount = (1000 + ((i * 7919) % 50_000)) * (i % 4 === 3 ? -1 : 1);
    transactions.push({
      id: `bt_${orgId}_${String(i).padStart(7, '0')}`,
      bank_account_id: account,
      booking_date: day(base, Math.floor((i * 700) / n)),
      amount_minor: amount,
      currency: 'EUR',
      counterparty_id: `cp_${orgId}_${k}`,
      counterparty_name: cpName(k),
      remittance_info: `invoice EX-${i}`,
      bank_reference: `EX-${i}`,
      status: 'unreconciled',
      reconciliation_id: null,
    });
  }
  return {
    org: {
      id: orgId,
      name: orgId,
      base_currency: 'EUR',
      lock_date: null,
      settlement_accounts: ['1400', '1600'],
      require_distinct_approver: true,
    },
    ledger_entries: [],
    bank_accounts: [
      {
        id: account,
        name: 'Import',
        currency: 'EUR',
        ledger_account: '1200',
        reconciled_through: null,
        opening_balance_minor: 0,
        iban: IBAN,
      },
    ],
    bank_transactions: transactions,
    bank_links: [],
    inbox_documents: [],
  };
}

/**
 * A CAMT.053.001.08 file (the shape of examples/statements/camt053-001-08.xml,
 * without indentation) of `n` booked entries in statements of 250, dated in
 * 2026 + `run` years so each run's file is new to the account; every
 * hundredth entry carries a bank reference the account already holds (skipped
 * as same_bank_reference). The same (n, run) gives the same bytes.
 */
export function camtFile(n: number, run: number): Buffer {
  const base = Date.UTC(2026 + run, 0, 1);
  const parts: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>',
    `<GrpHdr><MsgId>BENCH-${run}</MsgId><CreDtTm>2026-01-01T06:00:00+01:00</CreDtTm></GrpHdr>`,
  ];
  let balance = 0;
  const bal = (code: string, minor: number, date: string): string =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${decimal(Math.abs(minor))}</Amt><CdtDbtInd>${minor < 0 ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
  for (let s = 0; s * ENTRIES_PER_STATEMENT < n; s += 1) {
    const date = day(base, s);
    const entries: string[] = [];
    const opening = balance;
    for (let i = s * ENTRIES_PER_STATEMENT; i < Math.min(n, (s + 1) * ENTRIES_PER_STATEMENT); i += 1) {
      const k = (i * 13) % COUNTERPARTIES;
      const minor = 500 + ((i * 104_729) % 80_000);
      const credit = i % 3 !== 2;
      balance += credit ? minor : -minor;
      const ref = i % 100 === 99 ? `EX-${i}` : `ST${run}-${i}`;
      const party = credit
        ? `<Dbtr><Pty><Nm>${cpName(k)}</Nm></Pty></Dbtr><DbtrAcct><Id><IBAN>${cpIban(k)}</IBAN></Id></DbtrAcct>`
        : `<Cdtr><Pty><Nm>${cpName(k)}</Nm></Pty></Cdtr><CdtrAcct><Id><IBAN>${cpIban(k)}</IBAN></Id></CdtrAcct>`;
      entries.push(
        `<Ntry><Amt Ccy="EUR">${decimal(minor)}</Amt><CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
          `<BookgDt><Dt>${date}</Dt></BookgDt><ValDt><Dt>${date}</Dt></ValDt><AcctSvcrRef>${ref}</AcctSvcrRef>` +
          `<NtryDtls><TxDtls><Refs><EndToEndId>E2E-${run}-${i}</EndToEndId></Refs><Amt Ccy="EUR">${decimal(minor)}</Amt><CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd>` +
          `<RltdPties>${party}</RltdPties><RmtInf><Ustrd>Rechnung ${run}-${i} Größe ${i % 7}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
      );
    }
    parts.push(
      `<Stmt><Id>BENCH-${run}-${s}</Id><Acct><Id><IBAN>${IBAN}</IBAN></Id><Ccy>EUR</Ccy></Acct>`,
      bal('OPBD', opening, date),
      bal('CLBD', balance, date),
      ...entries,
      '</Stmt>',
    );
  }
  parts.push('</BkToCstmrStmt></Document>');
  return Buffer.from(parts.join(''), 'utf8');
}

interface Answer {
  status: number;
  ms: number;
  body: { data?: Record<string, unknown> } & Record<string, unknown>;
}

async function request(
  env: BenchEnv,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: Uint8Array | string,
  contentType?: string,
  minimal = false,
): Promise<Answer> {
  const start = performance.now();
  const res = await fetch(`${env.baseUrl}${path}`, {
    method,
    body,
    headers: {
      authorization: `Bearer ${token}`,
      prefer: minimal ? 'wait=120, return=minimal' : 'wait=120',
      ...(contentType ? { 'content-type': contentType } : {}),
    },
  });
  const text = await res.text();
  const answer = { status: res.status, ms: 0, body: JSON.parse(text) as Answer['body'] };
  // A call still running after its wait answers 202 + Location: follow it until it answers.
  let location = res.headers.get('location');
  while (answer.status === 202 && location) {
    await new Promise((r) => setTimeout(r, 100));
    const polled = await fetch(`${env.baseUrl}${location}`, {
      headers: { authorization: `Bearer ${token}`, ...(minimal ? { prefer: 'return=minimal' } : {}) },
    });
    answer.status = polled.status;
    answer.body = JSON.parse(await polled.text()) as Answer['body'];
    location = polled.headers.get('location') ?? location;
  }
  answer.ms = performance.now() - start;
  return answer;
}

function expectStatus(a: Answer, statuses: number[], what: string): void {
  if (!statuses.includes(a.status))
    throw new Error(`statement import ${what}: HTTP ${a.status} ${JSON.stringify(a.body).slice(0, 400)}`);
}

export async function measureStatementImport(
  env: BenchEnv,
  sizes: number[],
  repeat: number,
  smoke: boolean,
): Promise<StatementImportResult> {
  const accountSize = smoke ? 1000 : Math.max(...sizes);
  const entries = smoke ? 200 : Math.max(10, Math.round(accountSize / 10));
  const orgId = `org_si_${accountSize}`;
  const accountId = `ba_${orgId}_imp`;
  const loadMs = await timed(() => load(env.db, importAccountBooks(orgId, accountSize)));
  env.log(
    `  statement import: loaded ${orgId} (${accountSize} transactions) in ${(loadMs / 1000).toFixed(1)} s; files of ${entries} entries`,
  );
  // The org requires a second person's approval: a stager and a reviewer.
  const stager = await tokenFor(env.db, orgId);
  const reviewer = await tokenFor(env.db, orgId, 'bench-reviewer');
  const scratch = env.db.collection<Record<string, unknown> & { _id: string }>('bench_statement_import_scratch');
  const runs: Omit<
    StatementImportResult,
    | 'entries'
    | 'new_transactions'
    | 'account_transactions'
    | 'file_bytes'
    | 'stage_ratio'
    | 'apply_ratio'
    | 'apply_ratio_indexed'
    | 'stage_entries_s'
    | 'apply_entries_s'
  >[] = [];
  // Warm-up, not counted: a dry run of a file no run imports (the worker's parser and reads; nothing is stored), and the floor's calls here.
  const warmUp = camtFile(entries, repeat);
  expectStatus(
    await request(
      env,
      stager,
      'POST',
      `${importPath(accountId)}?dry_run=true`,
      new Uint8Array(warmUp),
      'application/xml',
    ),
    [200, 201],
    'dry run (warm-up)',
  );
  parseStatementFile(warmUp, { format: 'auto', encoding: null, csv: null, account_currency: 'EUR' });
  await accountTransactionsForImport(env.db, orgId, accountId);
  let fileBytes = 0;
  let fresh = 0;
  for (let run = 0; run < repeat; run += 1) {
    // Each run imports a new file (new references and dates): the account grows by the new entries of the runs before.
    const file = camtFile(entries, run);
    fileBytes = file.length;
    // (c) The floor of the stage: the same parser and the same read the job makes.
    const parse = await timed(() =>
      Promise.resolve(parseStatementFile(file, { format: 'auto', encoding: null, csv: null, account_currency: 'EUR' })),
    );
    const read = await timed(() => accountTransactionsForImport(env.db, orgId, accountId));
    const parseAndRead = parse + read;
    // (a) Stage through HTTP.
    const staged = await env.profile('statement import, stage', () =>
      request(env, stager, 'POST', importPath(accountId), new Uint8Array(file), 'application/xml'),
    );
    expectStatus(staged, [201], 'stage');
    const data = staged.body.data as { staged_operation_id: string; plan: StatementImportPlan };
    const id = data.staged_operation_id;
    fresh = data.plan.new_transactions.length;
    const approved = await request(
      env,
      reviewer,
      'POST',
      pathOf('staged_operations.approve', { id }),
      '{}',
      'application/json',
      true,
    );
    expectStatus(approved, [200], 'approve');
    // (b) Apply through HTTP, until applied.
    const applied = await env.profile('statement import, apply', () =>
      request(env, reviewer, 'POST', pathOf('staged_operations.apply', { id }), undefined, undefined, true),
    );
    expectStatus(applied, [200], 'apply');
    if ((applied.body.data as { status?: string } | undefined)?.status !== 'applied')
      throw new Error(`statement import apply: ${JSON.stringify(applied.body).slice(0, 400)}`);
    // (d) The floor of the apply: the journal's documents, as the apply inserts them, in one insertMany.
    const docs = statementImportJournal(data.plan).map((w) => ({
      ...(w.action === 'insert' ? w.doc : {}),
      _id: w.id,
      org_id: orgId,
    }));
    await scratch.drop().catch(() => undefined);
    const insertMany = await timed(() => scratch.insertMany(docs, { ordered: true }));
    await scratch.drop();
    const transactions = env.db.collection<Record<string, unknown> & { _id: string }>('bank_transactions');
    // An account of their own, so they go by one equality (a `$in` of ids reads the whole org on FerretDB).
    const floorAccount = `${accountId}_floor`;
    const indexedDocs = docs.map((d) => ({ ...d, _id: `${d._id}_floor`, bank_account_id: floorAccount }));
    const insertManyIndexed = await timed(() => transactions.insertMany(indexedDocs, { ordered: true }));
    await transactions.deleteMany({ org_id: orgId, bank_account_id: floorAccount });
    env.log(
      `  statement import run ${run + 1}: ${data.plan.new_transactions.length} new, ${data.plan.skipped.length} skipped; stage ${Math.round(staged.ms)} ms (floor ${Math.round(parseAndRead)} ms: parse ${Math.round(parse)}, read ${Math.round(read)}), apply ${Math.round(applied.ms)} ms (floor ${Math.round(insertMany)} ms; into bank_transactions ${Math.round(insertManyIndexed)} ms)`,
    );
    runs.push({
      stage_ms: staged.ms,
      parse_and_read_ms: parseAndRead,
      parse_ms: parse,
      read_ms: read,
      approve_ms: approved.ms,
      apply_ms: applied.ms,
      insert_many_ms: insertMany,
      insert_many_indexed_ms: insertManyIndexed,
    });
  }
  const med = (pick: (r: (typeof runs)[number]) => number): number => median(runs.map(pick));
  const stage = med((r) => r.stage_ms);
  const floor = med((r) => r.parse_and_read_ms);
  const apply = med((r) => r.apply_ms);
  const insert = med((r) => r.insert_many_ms);
  const indexed = med((r) => r.insert_many_indexed_ms);
  return {
    entries,
    new_transactions: fresh,
    account_transactions: accountSize,
    file_bytes: fileBytes,
    stage_ms: round(stage),
    stage_entries_s: round(entries / (stage / 1000)),
    parse_and_read_ms: round(floor),
    parse_ms: round(med((r) => r.parse_ms)),
    read_ms: round(med((r) => r.read_ms)),
    // The ratio of the medians, as the round trip's.
    stage_ratio: round(stage / floor),
    approve_ms: round(med((r) => r.approve_ms)),
    apply_ms: round(apply),
    apply_entries_s: round(fresh / (apply / 1000)),
    insert_many_ms: round(insert),
    insert_many_indexed_ms: round(indexed),
    apply_ratio: round(apply / insert),
    apply_ratio_indexed: round(apply / indexed),
  };
}
