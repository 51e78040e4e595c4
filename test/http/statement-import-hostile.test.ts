// Hostile and malformed statement files on the real stack (docs/guide/statement-import.md
// "Unreadable files", "The decision", "Apply"): refused before anything is
// staged, on the job's first attempt; entries in a closed period skipped at
// staging and refused again at apply; an apply whose write the store refuses
// ends `failed` with nothing half-written and the account free again.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { call, type AnswerBody } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, docs, locksOf, show } from '../helpers/staged.js';

const IBAN = 'DE89370400440532013000';
const sample = (name: string): string =>
  readFileSync(new URL(`../../../examples/statements/${name}`, import.meta.url)).toString('utf8');
const CSV_QUERY = '?format=csv&date_column=date&amount_column=amount&counterparty_column=name&remittance_column=text';

interface ImportData {
  outcome: string;
  staged_operation_id?: string;
  plan: {
    new_transactions: { id: string; booking_date: string; amount_minor: number; remittance_info: string | null }[];
    skipped: { booking_date: string; reason: string; existing_transaction_id: string | null }[];
  };
}

async function post(token: string, accountId: string, body: string, query = '') {
  const s = await stack();
  const res = await fetch(`${s.baseUrl}/api/v1/cli/bank-accounts/${accountId}/statements/import/stage${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body,
  });
  return { status: res.status, body: JSON.parse(await res.text()) as AnswerBody<ImportData> };
}

async function demoAccount(org: Record<string, unknown> = {}) {
  const books = new Books(org);
  const account = books.account({ iban: IBAN, account_number: '0532013000', opening_balance_minor: 1_000_00 });
  const s = await stack();
  await s.load(books.file);
  return { books, account, who: await actors(books.orgId), s };
}

const count = async (collection: string, filter: Record<string, unknown>) => (await docs(collection, filter)).length;

describe('statement import: hostile and malformed files on the real stack', () => {
  const TEXT_RULE = 'text must not contain control characters, bidirectional overrides or lone surrogates';
  const nul: [string, string, string, string][] = [
    [
      'an MT940 :86: field',
      sample('mt940-nl-tags.sta').replace('/REMI/Dinner clients/', '/REMI/Dinner\u0000clients/'),
      '',
      'statement 1/entries[2]/remittance_info',
    ],
    [
      'an OFX NAME',
      sample('ofx-2-xml.ofx').replace('Żółć Trading', 'Żółć\u0000Trading'),
      '',
      'statement 1/entries[1]/counterparty_name',
    ],
    [
      'a CSV cell',
      'date,amount,name,text\n2026-11-20,1.00,Ac\u0000me,x\n',
      CSV_QUERY,
      'statement 1/entries[1]/counterparty_name',
    ],
  ];
  for (const [where, file, query, location] of nul) {
    it(`refuses a NUL in ${where} with 422 unreadable_statement before staging`, async () => {
      const { books, account, who } = await demoAccount();
      const res = await post(who.alice, account, file, query);
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.error.code).to.equal('unreadable_statement');
      expect(res.body.error.details).to.deep.include({ location, reason: `${TEXT_RULE} (U+0000, a NUL)` });
      expect(await count('staged_operations', { org_id: books.orgId })).to.equal(0);
    });
  }

  const camt = sample('camt053-001-02.xml');
  const hostile: [string, string, string][] = [
    [
      'an external parameter entity',
      camt.replace(
        '<Document',
        '<!DOCTYPE Document [<!ENTITY % ext SYSTEM "http://127.0.0.1:9/x.dtd"> %ext;]>\n<Document',
      ),
      'a document type declaration (<!DOCTYPE, <!ENTITY) is not allowed',
    ],
    [
      '20,000-deep nesting',
      camt.replace('<AcctSvcrRef>', `${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}<AcctSvcrRef>`),
      'elements nested more than 64 deep',
    ],
    [
      'an element of 100,000 attributes',
      camt.replace(
        '<AcctSvcrRef>',
        `<a ${Array.from({ length: 100_000 }, (_, i) => `b${i}="1"`).join(' ')}/><AcctSvcrRef>`,
      ),
      'an element with more than 32 attributes',
    ],
    [
      'a <__proto__> element',
      camt.replace('<AcctSvcrRef>', '<__proto__><polluted>1</polluted></__proto__><AcctSvcrRef>'),
      "the file's structure could not be read",
    ],
  ];
  for (const [what, file, reason] of hostile) {
    it(`answers 422 unreadable_statement for CAMT with ${what}, on the job's first attempt`, async () => {
      const { books, account, who } = await demoAccount();
      const res = await post(who.alice, account, file);
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.error.code).to.equal('unreadable_statement');
      expect(res.body.error.details).to.include({ format: 'camt053', reason });
      expect(await count('staged_operations', { org_id: books.orgId })).to.equal(0);
    });
  }

  it('answers 422 unsupported_statement_version for a CAMT.053 namespace past .08', async () => {
    const { account, who } = await demoAccount();
    const res = await post(who.alice, account, camt.replace('camt.053.001.02', 'camt.053.001.09'));
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error).to.deep.include({
      code: 'unsupported_statement_version',
      details: {
        format: 'camt053',
        version: 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.09',
        supported: 'camt.053.001.02 to camt.053.001.08',
      },
    });
  });

  it('skips lines on or before the lock date as period_locked at staging, and refuses the apply once the lock passes a new one', async () => {
    const { books, account, who, s } = await demoAccount({ lock_date: '2025-01-31' });
    const file = 'date,amount,name,text\n2025-01-01,10.00,Old,locked\n2025-02-10,20.00,New,open\n';
    const res = await post(who.alice, account, file, CSV_QUERY);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.plan.new_transactions.map((t) => t.booking_date)).to.deep.equal(['2025-02-10']);
    expect(res.body.data.plan.skipped).to.deep.equal([
      {
        booking_date: '2025-01-01',
        amount_minor: 1000,
        bank_reference: null,
        reason: 'period_locked',
        existing_transaction_id: null,
      },
    ]);
    const id = res.body.data.staged_operation_id!;
    expect((await approve(who.bob, id)).status).to.equal(200);
    // The period is closed through February meanwhile.
    await s.db.collection('orgs').updateOne({ _id: books.orgId } as never, { $set: { lock_date: '2025-02-28' } });
    const applied = await apply(who.bob, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(409);
    expect(applied.body.error.code).to.equal('stale_plan');
    expect(applied.body.error.details).to.deep.include({ reason: 'period_locked', lock_date: '2025-02-28' });
    expect((await show(who.bob, id)).body.data.status).to.equal('stale');
    expect(await count('bank_transactions', { org_id: books.orgId })).to.equal(0);
    expect(await locksOf(id)).to.equal(0);
  });

  it('ends an apply whose insert the store refuses as failed: its writes undone, its locks released, the account free', async () => {
    const { books, account, who, s } = await demoAccount();
    const file = 'date,amount,name,text\n2026-11-20,1.00,A,first\n2026-11-21,2.00,B,second\n2026-11-22,3.00,C,third\n';
    const res = await post(who.alice, account, file, CSV_QUERY);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const id = res.body.data.staged_operation_id!;
    expect((await approve(who.bob, id)).status).to.equal(200);
    // A NUL the parser would refuse put straight into the stored plan (JSON text: `\u0000` is six characters
    // there), as a plan staged before the parser refused NULs holds it; PostgreSQL refuses to store it (22P05).
    const stored = (await s.db.collection('staged_operations').findOne({ _id: id } as never)) as Record<
      string,
      unknown
    >;
    const holder = stored.body_id
      ? { collection: 'staged_operation_bodies', id: stored.body_id as string }
      : { collection: 'staged_operations', id };
    const current = (await s.db.collection(holder.collection).findOne({ _id: holder.id } as never)) as Record<
      string,
      unknown
    >;
    const planJson = current.plan_json as string;
    expect(planJson).to.include('"second"');
    await s.db
      .collection(holder.collection)
      .updateOne({ _id: holder.id } as never, { $set: { plan_json: planJson.replace('"second"', '"sec\\u0000ond"') } });

    const applied = await apply(who.bob, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(409);
    expect(applied.body.error.code).to.equal('apply_failed');
    expect(applied.body.error.details).to.deep.include({ reason: 'store_refused_write' });
    expect((await show(who.bob, id)).body.data.status).to.equal('failed');
    // Nothing half-written: the first transaction, inserted before the refused one, is undone.
    expect(await count('bank_transactions', { org_id: books.orgId })).to.equal(0);
    expect(await locksOf(id)).to.equal(0);
    // The account takes an import again (no 409 pending_operation), and it applies.
    const again = await post(who.alice, account, file, CSV_QUERY);
    expect(again.status, JSON.stringify(again.body)).to.equal(201);
    const next = again.body.data.staged_operation_id!;
    expect((await approve(who.bob, next)).status).to.equal(200);
    expect((await apply(who.bob, next)).status).to.equal(200);
    expect(await count('bank_transactions', { org_id: books.orgId })).to.equal(3);
  });

  describe('PUT …/csv-mapping checks the mapping as a whole', () => {
    const put = async (body: Record<string, unknown>) => {
      const { account, who } = await demoAccount();
      return call('PUT', `/api/v1/cli/bank-accounts/${account}/csv-mapping`, { token: who.alice, body });
    };
    const cases: [string, Record<string, unknown>, string][] = [
      [
        'amount_column with debit and credit columns',
        { amount_column: 'a', debit_column: 'd', credit_column: 'c' },
        '/debit_column',
      ],
      ['amount_column with a credit column', { amount_column: 'a', credit_column: 'c' }, '/credit_column'],
      ['a quote as delimiter', { amount_column: 'a', delimiter: '"' }, '/delimiter'],
      ['a line break as delimiter', { amount_column: 'a', delimiter: '\n' }, '/delimiter'],
      [
        'the decimal separator as delimiter',
        { amount_column: 'a', delimiter: ',', decimal_separator: ',' },
        '/delimiter',
      ],
    ];
    for (const [what, fields, pointer] of cases) {
      it(`refuses ${what}: 400 validation_failed at ${pointer}`, async () => {
        const res = await put({ date_column: 'date', ...fields });
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error.code).to.equal('validation_failed');
        expect(res.body.error.errors.map((e) => e.pointer)).to.deep.equal([pointer]);
      });
    }
  });
});
