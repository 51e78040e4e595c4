// docs/guide/statement-import.md on the real stack: a bank statement file staged
// through HTTP as the kind `statement_import`, approved, applied; duplicates,
// unreadable files, wrong accounts and stale plans.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { call, type AnswerBody } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, docs } from '../helpers/staged.js';

const IBAN = 'DE89370400440532013000';
const path = (accountId: string, query = ''): string =>
  `/api/v1/cli/bank-accounts/${accountId}/statements/import/stage${query}`;
const sample = (name: string): Buffer => readFileSync(new URL(`../../../examples/statements/${name}`, import.meta.url));

/** The demo CSV's mapping (docs/guide/statement-import.md "Samples"). */
const SAMPLE_CSV_QUERY = `?${new URLSearchParams({
  date_column: 'Buchungstag',
  value_date_column: 'Valuta',
  counterparty_column: 'Empfänger/Auftraggeber',
  iban_column: 'IBAN',
  remittance_column: 'Verwendungszweck',
  amount_column: 'Betrag',
  currency_column: 'Währung',
  date_format: 'DD.MM.YYYY',
  decimal_separator: ',',
  delimiter: ';',
  skip_rows: '3',
}).toString()}`;
const SIMPLE_CSV_QUERY =
  '?format=csv&date_column=date&amount_column=amount&counterparty_column=name&remittance_column=text&reference_column=ref';

interface ImportData {
  outcome: string;
  staged_operation_id?: string;
  plan: {
    bank_account_id: string;
    format: string;
    new_transactions: {
      id: string;
      booking_date: string;
      amount_minor: number;
      counterparty_id: string | null;
      bank_reference: string | null;
    }[];
    skipped: { reason: string; existing_transaction_id: string; amount_minor: number }[];
  };
}

interface Raw<Data> {
  status: number;
  body: AnswerBody<Data>;
}

/** POST the bytes as they are (a file may be in a legacy code page: never re-encoded here). */
async function post<Data = ImportData>(
  token: string,
  accountId: string,
  bytes: Buffer | string,
  query = '',
  headers: Record<string, string> = {},
): Promise<Raw<Data>> {
  const s = await stack();
  const res = await fetch(`${s.baseUrl}${path(accountId, query)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', ...headers },
    body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as AnswerBody<Data> };
}

/** An org with the demo account's identity (IBAN, number, EUR, opening 1,000.00). */
async function demoAccount(fields: Record<string, unknown> = {}) {
  const books = new Books();
  const account = books.account({
    iban: IBAN,
    account_number: '0532013000',
    opening_balance_minor: 1_000_00,
    ...fields,
  });
  const s = await stack();
  await s.load(books.file);
  const who = await actors(books.orgId);
  return { books, account, who, s };
}

async function stagedCount(orgId: string): Promise<number> {
  return (await docs('staged_operations', { org_id: orgId })).length;
}

describe('POST /bank-accounts/{bank_account_id}/statements/import/stage', () => {
  const samples: [string, string, number, string[]][] = [
    ['camt053-001-02.xml', 'camt053', 3, ['pending_entries_left_out']],
    ['camt053-001-08.xml', 'camt053', 3, ['opening_balance_differs']],
    ['ofx-1-sgml.ofx', 'ofx', 2, []],
    ['ofx-2-xml.ofx', 'ofx', 1, ['pending_entries_left_out', 'foreign_currency_entries']],
    ['mt940-de-subfields.sta', 'mt940', 3, ['opening_balance_differs']],
    ['mt940-nl-tags.sta', 'mt940', 2, ['opening_balance_differs']],
    ['bank-export.csv', 'csv', 4, []],
  ];
  for (const [name, format, count, codes] of samples) {
    it(`stages ${name} (${format}): 201, ${count} new transactions, warnings ${codes.join(', ') || 'none'}`, async () => {
      const { account, who } = await demoAccount();
      const res = await post(who.alice, account, sample(name), name.endsWith('.csv') ? SAMPLE_CSV_QUERY : '');
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.include({ ok: true, operation: 'statement_import.stage' });
      expect(res.body.data.plan).to.include({ bank_account_id: account, format });
      expect(res.body.data.plan.new_transactions).to.have.length(count);
      expect(res.body.warnings.map((w) => w.code)).to.deep.equal(codes);
      const [op] = await docs('staged_operations', { _id: res.body.data.staged_operation_id });
      expect(op).to.include({ kind: 'statement_import', status: 'staged', scope_key: `statement_import:${account}` });
      // The file is not kept with the operation, only its size.
      expect(op!.input).to.not.have.property('content_base64');
      expect(op!.input).to.include({ bank_account_id: account, file_bytes: sample(name).length });
    });
  }

  it('stage → approve → apply inserts the new transactions, unreconciled at version 1, readable through the transaction list; the same file again is noop', async () => {
    const { books, account, who } = await demoAccount();
    const staged = await post(who.alice, account, sample('camt053-001-02.xml'));
    expect(staged.status).to.equal(201);
    const id = staged.body.data.staged_operation_id!;
    // Its context is the account it goes into, as the account read answers it (the plan lists every entry itself).
    const reader = await (await stack()).token(books.orgId, ['books:read']);
    const shownAccount = await call<{ id: string; name: string; currency: string }>(
      'GET',
      `/api/v1/cli/bank-accounts/${account}`,
      { token: reader },
    );
    const { name, currency } = shownAccount.body.data;
    expect((staged.body.data as { context?: unknown }).context).to.deep.equal({
      bank_account: { id: account, name, currency },
    });
    expect((await approve(who.bob, id)).status).to.equal(200);
    const applied = await apply(who.bob, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.body.data.status).to.equal('applied');

    const list = await call<{ items: Record<string, unknown>[] }>(
      'GET',
      `/api/v1/cli/bank-transactions?bank_account_id=${account}`,
      { token: await (await stack()).token(books.orgId, ['books:read']) },
    );
    expect(list.status, JSON.stringify(list.body)).to.equal(200);
    const planned = staged.body.data.plan.new_transactions;
    expect(list.body.data.items.map((t) => t.id).sort()).to.deep.equal(planned.map((t) => t.id).sort());
    for (const t of list.body.data.items) {
      const p = planned.find((x) => x.id === t.id)!;
      expect(t).to.include({
        status: 'unreconciled',
        version: 1,
        amount_minor: p.amount_minor,
        booking_date: p.booking_date,
        bank_reference: p.bank_reference,
        counterparty_id: null,
      });
    }

    const again = await post(who.alice, account, sample('camt053-001-02.xml'));
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.data.outcome).to.equal('noop');
    expect(again.body.data.plan.new_transactions).to.deep.equal([]);
    expect(again.body.data.plan.skipped.map((s) => s.reason)).to.deep.equal([
      'same_bank_reference',
      'same_bank_reference',
      'same_bank_reference',
    ]);
    expect(await stagedCount(books.orgId)).to.equal(1);
  });

  it('an overlapping file adds only the entries not on the account yet', async () => {
    const { account, who } = await demoAccount();
    const first = 'date,amount,name,text,ref\n2026-11-03,100.00,Alpha,inv 1,\n2026-11-04,-20.00,Beta,fee,\n';
    const second = 'date,amount,name,text,ref\n2026-11-04,-20.00,Beta,fee,\n2026-11-05,55.00,Gamma,inv 2,\n';
    const staged = await post(who.alice, account, first, SIMPLE_CSV_QUERY);
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    await approve(who.bob, staged.body.data.staged_operation_id!);
    expect((await apply(who.bob, staged.body.data.staged_operation_id!)).status).to.equal(200);
    const beta = staged.body.data.plan.new_transactions.find((t) => t.amount_minor === -2000)!;

    const res = await post(who.alice, account, second, SIMPLE_CSV_QUERY);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.plan.new_transactions.map((t) => [t.booking_date, t.amount_minor])).to.deep.equal([
      ['2026-11-05', 5500],
    ]);
    expect(res.body.data.plan.skipped).to.deep.equal([
      {
        booking_date: '2026-11-04',
        amount_minor: -2000,
        bank_reference: null,
        reason: 'same_fingerprint',
        existing_transaction_id: beta.id,
      },
    ]);
  });

  it('imports both of two identical payments in one file', async () => {
    const { account, who } = await demoAccount();
    const file = 'date,amount,name,text,ref\n2026-11-05,-4.50,Cafe,Coffee,\n2026-11-05,-4.50,Cafe,Coffee,\n';
    const res = await post(who.alice, account, file, SIMPLE_CSV_QUERY);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.plan.new_transactions.map((t) => t.amount_minor)).to.deep.equal([-450, -450]);
    expect(new Set(res.body.data.plan.new_transactions.map((t) => t.id)).size).to.equal(2);
  });

  const corrupt: [string, Buffer | string, string, RegExp][] = [
    [
      'CAMT.053 with an unclosed element',
      sample('camt053-001-02.xml').toString('utf8').replace('</Stmt>', ''),
      '',
      /^line \d+/,
    ],
    [
      'CAMT.053 with a non-numeric amount',
      sample('camt053-001-02.xml').toString('utf8').replace('1250.50', '12x0.50'),
      '',
      /Ntry\[1\]\/Amt/,
    ],
    [
      'OFX with a broken amount',
      sample('ofx-2-xml.ofx')
        .toString('utf8')
        .replace(/<TRNAMT>[^<]*/, '<TRNAMT>abc'),
      '',
      /TRNAMT/,
    ],
    [
      'MT940 with a broken :61: line',
      sample('mt940-nl-tags.sta')
        .toString('latin1')
        .replace(/:61:[^\r\n]*/, ':61:XXXX'),
      '?format=mt940',
      /^(line \d+|statement \d+)/,
    ],
    [
      'CSV with a date that is not one',
      'date,amount,name,text,ref\n31.02.2026,1.00,A,b,\n',
      SIMPLE_CSV_QUERY,
      /^line 2$/,
    ],
  ];
  for (const [name, bytes, query, location] of corrupt) {
    it(`answers 422 unreadable_statement with the location for ${name}, and stores nothing`, async () => {
      const { books, account, who } = await demoAccount();
      const res = await post(who.alice, account, typeof bytes === 'string' ? bytes : bytes, query);
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.error.code).to.equal('unreadable_statement');
      expect(String(res.body.error.details.location)).to.match(location);
      expect(await stagedCount(books.orgId)).to.equal(0);
    });
  }

  it('answers 422 account_mismatch for a file of another account', async () => {
    const { books, account, who } = await demoAccount({ iban: 'GB33BUKB20201555555555', account_number: '55555555' });
    const res = await post(who.alice, account, sample('camt053-001-02.xml'));
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('account_mismatch');
    expect(await stagedCount(books.orgId)).to.equal(0);
  });

  it('stages an out-of-balance statement with the warning statement_out_of_balance', async () => {
    const { account, who } = await demoAccount();
    const res = await post(
      who.alice,
      account,
      sample('camt053-001-02.xml').toString('utf8').replace('1905.50', '1905.60'),
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const w = res.body.warnings.find((x) => x.code === 'statement_out_of_balance') as
      { details?: { statements: { difference_minor: number }[] } } | undefined;
    expect(w, JSON.stringify(res.body.warnings)).to.not.equal(undefined);
  });

  it('refuses unknown query parameters and a mapping without date_column: 400 validation_failed', async () => {
    const { account, who } = await demoAccount();
    const unknown = await post(who.alice, account, 'x', '?colour=blue');
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.errors.map((e) => e.pointer)).to.include('/query/colour');
    const noDate = await post(who.alice, account, 'x', '?amount_column=amount');
    expect(noDate.status).to.equal(400);
  });

  it("answers 413 payload_too_large past 10 MB, with the import's own limit", async () => {
    const { account, who } = await demoAccount();
    const res = await post(who.alice, account, Buffer.alloc(10 * 1024 * 1024 + 1, 0x41));
    expect(res.status).to.equal(413);
    expect(res.body.error).to.deep.include({ code: 'payload_too_large' });
    expect(res.body.error.details).to.deep.equal({ limit_bytes: 10 * 1024 * 1024 });
  });

  it('answers the very same pending plan as already staged, and a different file for the account 409 pending_operation', async () => {
    const { account, who } = await demoAccount();
    const first = await post(who.alice, account, sample('ofx-1-sgml.ofx'));
    expect(first.status).to.equal(201);
    const same = await post(who.alice, account, sample('ofx-1-sgml.ofx'));
    expect(same.status, JSON.stringify(same.body)).to.equal(200);
    expect(same.body.data.staged_operation_id).to.equal(first.body.data.staged_operation_id);
    const other = await post(who.alice, account, sample('mt940-nl-tags.sta'));
    expect(other.status, JSON.stringify(other.body)).to.equal(409);
    expect(other.body.error.code).to.equal('pending_operation');
  });

  it('a dry run (?dry_run=true) answers the plan a staging would have, with the same plan_hash, stores nothing and takes no lock', async () => {
    const { books, account, who } = await demoAccount();
    const locks = async (): Promise<number> => (await docs('scope_locks', { org_id: books.orgId })).length;
    const dry = await post<ImportData & { dry_run: boolean; plan_hash: string }>(
      who.alice,
      account,
      sample('camt053-001-08.xml'),
      '?dry_run=true',
    );
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    expect(dry.body.data).to.include({ dry_run: true, outcome: 'staged' });
    expect(dry.body.data.plan.new_transactions).to.have.length(3);
    expect(await stagedCount(books.orgId)).to.equal(0);
    expect(await locks()).to.equal(0);
    const real = await post<ImportData & { plan_hash: string }>(who.alice, account, sample('camt053-001-08.xml'));
    expect(real.status).to.equal(201);
    expect(real.body.data.plan).to.deep.equal(dry.body.data.plan);
    expect(real.body.data.plan_hash).to.equal(dry.body.data.plan_hash);
    // The real staging holds the account's lock, which the dry run did not take.
    expect(await locks()).to.be.above(0);
    // A CSV's mapping and dry_run side by side in the query.
    const csv = await post<ImportData & { dry_run: boolean }>(
      who.alice,
      account,
      'date,amount,name,text,ref\n2026-11-20,1.00,A,b,\n',
      `${SIMPLE_CSV_QUERY}&dry_run=true`,
    );
    expect(csv.status, JSON.stringify(csv.body)).to.equal(200);
    expect(csv.body.data).to.include({ dry_run: true });
  });

  it('makes the apply stale when a transaction with one of the new bank references reached the account meanwhile', async () => {
    const { books, account, who, s } = await demoAccount();
    const staged = await post(who.alice, account, sample('camt053-001-02.xml'));
    expect(staged.status).to.equal(201);
    const intruder = books.txn(account, 125_050, {
      booking_date: '2026-11-03',
      bank_reference: 'BANK-REF-0001',
      counterparty_id: null,
    });
    await s.load(books.file);
    const id = staged.body.data.staged_operation_id!;
    await approve(who.bob, id);
    const res = await apply(who.bob, id);
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error.code).to.equal('stale_plan');
    expect(res.body.error.details.changed).to.deep.equal([
      { collection: 'bank_transactions', id: intruder, expected_version: 0, actual_version: 1 },
    ]);
    expect(await docs('bank_transactions', { org_id: books.orgId })).to.have.length(1);
  });
});
