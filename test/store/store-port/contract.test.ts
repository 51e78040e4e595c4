// The store port's contract (docs/design/architecture.md "The store port"):
// every method answers the same through the mongo adapter and through the
// FerretDB one on FerretDB 1.x's PostgreSQL tables, on the same seeded
// documents. Where the two differ by design (insertTogether, refreshStatistics)
// the test says what each must answer. Skipped on MongoDB, where only the
// mongo adapter runs.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Db, Document } from 'mongodb';
import type { FieldsQuery, PageQuery, StorePort, WhereQuery } from '../../../shared/storage/port.js';
import { closeStoreAdapter, storeAdapter } from '../../../shared/storage/store-adapter.js';
import { ferretdbHandle, ferretdbStack, sqlStats } from '../../helpers/ferretdb-adapter.js';

/** Documents in a comparable order, each with its keys in the order it came with. */
const canonical = (docs: Document[]): string[] => docs.map((d) => JSON.stringify(d)).sort();
/** As canonical, top-level keys sorted: `fields` promises the fields, not their order. */
const keySorted = (docs: Document[]): string[] =>
  canonical(docs.map((d) => Object.fromEntries(Object.entries(d).sort(([a], [b]) => (a < b ? -1 : 1)))));

/** Ids whose byte order differs from a language collation's. */
const SUFFIXES = ['a1', 'Z1', 'é1', '_1', 'z1', 'A1', '01', 'b1'];
const DATES = ['2026-02-01', '2026-02-03', '2026-02-03', '2026-02-05'];

describe('store port contract: the mongo adapter and the FerretDB adapter answer alike', function () {
  this.timeout(300_000);
  const uid = randomBytes(3).toString('hex');
  const orgId = `org_port_${uid}`;
  const otherOrg = `org_port_${uid}_x`;
  let db: Db;
  let sql: Db;
  let mongo: StorePort;
  let ferret: StorePort;

  /** Both adapters' answers to `ask`, after checking the FerretDB one served at least one SQL query. */
  async function both<T>(ask: (port: StorePort) => Promise<T>, sqlQueries = true): Promise<[T, T]> {
    const served = sqlStats(sql).served;
    const viaDriver = await ask(mongo);
    const viaSql = await ask(ferret);
    if (sqlQueries) expect(sqlStats(sql).served, 'answered in SQL').to.be.above(served);
    return [viaDriver, viaSql];
  }

  before(async function () {
    const { s, postgresUrl } = await ferretdbStack(this, 'only the mongo adapter runs there');
    db = s.db;
    sql = await ferretdbHandle(db, postgresUrl);
    mongo = await storeAdapter(db);
    ferret = await storeAdapter(sql);
    expect(mongo.name).to.equal('mongo');
    expect(ferret.name).to.equal('ferretdb');
    const transactions: Document[] = [];
    const entries: Document[] = [];
    const links: Document[] = [];
    for (const [org, n] of [
      [orgId, 0],
      [otherOrg, 100],
    ] as const) {
      SUFFIXES.forEach((suffix, i) => {
        const id = `bt_${uid}_${n + i}_${suffix}`;
        transactions.push({
          _id: id,
          org_id: org,
          bank_account_id: i % 3 === 0 ? `ba_${uid}_b` : `ba_${uid}_a`,
          booking_date: DATES[i % DATES.length],
          amount_minor: 1000 * (i + 1) * (i % 2 === 0 ? 1 : -1),
          status: i % 2 === 0 ? 'unreconciled' : 'reconciled',
          counterparty_id: `cp_${uid}_${i % 3}`,
          counterparty_name: `Name ${suffix}`,
          bank_reference: i % 4 === 3 ? null : `REF-${i % 5}`,
          version: i + 1,
          ...(i === 5 ? { extra: { nested: [1, 'two', { three: 3 }] } } : {}),
        });
        const entry = `le_${uid}_${n + i}_${suffix}`;
        entries.push({
          _id: entry,
          org_id: org,
          entry_date: DATES[(i + 1) % DATES.length],
          counterparty_id: `cp_${uid}_${i % 3}`,
          status: i === 2 ? 'reversed' : 'posted',
          reference: `REF-${i % 2}`,
          lines: [{ account: '1200', debit_minor: 1000 * (i + 1) }],
          version: 1,
        });
        links.push({
          _id: `ln_${uid}_${n + i}`,
          org_id: org,
          bank_transaction_id: id,
          ledger_entry_id:
            i % 2 === 0 ? entry : `le_${uid}_${n + ((i + 1) % SUFFIXES.length)}_${SUFFIXES[(i + 1) % SUFFIXES.length]}`,
          amount_minor: 100 + i,
          version: 1,
        });
      });
    }
    await db.collection('bank_transactions').insertMany(transactions);
    await db.collection('ledger_entries').insertMany(entries);
    await db.collection('bank_links').insertMany(links);
    // Open documents of one total in two currencies, another total, a closed one, another organisation's.
    const doc = (n: number, org: string, status: string, total: number, currency: string) => ({
      _id: `doc_${uid}_${n}`,
      org_id: org,
      status,
      received_at: `2026-02-0${n}T08:00:00.000Z`,
      extracted: { vendor_name: `Vendor ${n}`, total_minor: total, currency },
    });
    await db
      .collection('inbox_documents')
      .insertMany([
        doc(1, orgId, 'open', 2_490, 'EUR'),
        doc(2, orgId, 'open', 2_490, 'USD'),
        doc(3, orgId, 'resolved', 2_490, 'EUR'),
        doc(4, orgId, 'open', 2_491, 'EUR'),
        doc(5, otherOrg, 'open', 2_490, 'EUR'),
        doc(6, orgId, 'open', 2_490, 'EUR'),
      ] as never[]);
    await db.collection('event_sequences').insertMany([
      { _id: `${orgId}:1`, org_id: orgId, sequence: 1, at: '2026-01-01T00:00:01.000Z' },
      { _id: `${orgId}:3`, org_id: orgId, sequence: 3, at: '2026-01-01T00:00:03.000Z' },
      { _id: `${orgId}:2`, org_id: orgId, sequence: 2, at: '2026-01-01T00:00:02.000Z' },
      { _id: `${otherOrg}:9`, org_id: otherOrg, sequence: 9, at: '2026-01-01T00:00:00.000Z' },
    ] as never[]);
  });

  after(async () => {
    if (sql) await closeStoreAdapter(sql);
  });

  it('page: every page of each filter (strings or whole numbers), range, direction and size, document for document and key for key', async () => {
    const filters: Array<Partial<PageQuery>> = [
      { equalities: { org_id: orgId } },
      { equalities: { org_id: orgId, bank_account_id: `ba_${uid}_a` } },
      { equalities: { org_id: orgId, bank_account_id: `ba_${uid}_a`, status: 'reconciled' } },
      { equalities: { org_id: orgId, counterparty_id: `cp_${uid}_1` }, from: '2026-02-02', to: '2026-02-04' },
      { equalities: { org_id: orgId, status: 'unreconciled', counterparty_id: undefined }, from: '2026-02-03' },
      // Whole numbers, as a match suggestion's exact-amount group reads open amounts (docs/reference/http-api.md §8.2).
      { equalities: { org_id: orgId, amount_minor: 3000 } },
      { equalities: { org_id: orgId, amount_minor: -2000 }, to: '2026-02-05' },
    ];
    for (const filter of filters)
      for (const direction of [1, -1] as const)
        for (const limit of [1, 3, 500]) {
          const walk = async (port: StorePort): Promise<Document[][]> => {
            const pages: Document[][] = [];
            let after: PageQuery['after'] = null;
            for (;;) {
              const page = await port.page({
                collection: 'bank_transactions',
                equalities: {},
                key: 'booking_date',
                after,
                direction,
                limit,
                ...filter,
              });
              pages.push(page);
              if (page.length < limit) return pages;
              const last = page[page.length - 1]!;
              after = { key: last.booking_date as string, id: last._id as string };
            }
          };
          const [viaDriver, viaSql] = await both(walk);
          const what = `${JSON.stringify(filter)} ${direction} ${limit}`;
          expect(JSON.stringify(viaSql), what).to.equal(JSON.stringify(viaDriver));
        }
    // A number filter selects by value, not by nothing matching on either side.
    const [byDriver, bySql] = await both((port) =>
      port.page({
        collection: 'bank_transactions',
        equalities: { org_id: orgId, amount_minor: 3000 },
        key: 'booking_date',
        after: null,
        direction: 1,
        limit: 10,
      }),
    );
    expect(bySql.map((d) => d._id as string)).to.deep.equal([`bt_${uid}_2_é1`]);
    expect(byDriver.map((d) => d._id as string)).to.deep.equal([`bt_${uid}_2_é1`]);
  });

  it('fields: by a page index (with a range of dates) and by the GIN containments, absent fields left out, _id only when named', async () => {
    const queries: FieldsQuery[] = [
      {
        collection: 'bank_transactions',
        equalities: { org_id: orgId, bank_account_id: `ba_${uid}_a` },
        index: 'page' as const,
        fields: ['amount_minor', 'status', 'extra'],
      },
      {
        collection: 'ledger_entries',
        equalities: { org_id: orgId, status: 'posted' },
        index: 'page' as const,
        fields: ['_id', 'counterparty_id', 'lines', 'status'],
      },
      {
        collection: 'bank_links',
        equalities: { org_id: orgId },
        index: 'gin' as const,
        fields: ['bank_transaction_id', 'ledger_entry_id', 'amount_minor'],
      },
      // The kept day totals' read of some days (both bounds inclusive).
      {
        collection: 'bank_transactions',
        equalities: { org_id: orgId },
        index: 'page' as const,
        fields: ['_id', 'booking_date', 'amount_minor'],
        range: { key: 'booking_date', from: '2026-02-02', to: '2026-02-03' },
      },
    ];
    for (const q of queries) {
      const [viaDriver, viaSql] = await both((port) => port.fields(q));
      expect(viaDriver.length, q.collection).to.be.above(0);
      if (q.range) expect(viaDriver.every((d) => d.booking_date === '2026-02-03')).to.equal(true);
      expect(keySorted(viaSql), q.collection).to.deep.equal(keySorted(viaDriver));
    }
  });

  it('latest: the last document by (key, _id) of each value, none for a value without any', async () => {
    const q = {
      collection: 'bank_transactions',
      equalities: { org_id: orgId },
      per: 'counterparty_id',
      values: [`cp_${uid}_0`, `cp_${uid}_1`, `cp_${uid}_2`, 'cp_nobody'],
      key: 'booking_date',
      fields: ['_id', 'booking_date', 'counterparty_id', 'counterparty_name'],
    };
    const [viaDriver, viaSql] = await both((port) => port.latest(q));
    expect(viaDriver).to.have.length(3);
    expect(canonical(viaSql)).to.deep.equal(canonical(viaDriver));
    const [none, noneSql] = await both((port) => port.latest({ ...q, values: [] }), false);
    expect(none).to.deep.equal([]);
    expect(noneSql).to.deep.equal([]);
  });

  it('where: equalities, a list beside org_id and beside another equality, a list by a global id with the owner checked, a projection', async () => {
    const ids = SUFFIXES.map((suffix, i) => `bt_${uid}_${i}_${suffix}`);
    const otherIds = SUFFIXES.map((suffix, i) => `bt_${uid}_${100 + i}_${suffix}`);
    const queries: WhereQuery[] = [
      { collection: 'ledger_entries', equalities: { org_id: orgId, counterparty_id: `cp_${uid}_1` } },
      {
        collection: 'bank_links',
        equalities: { org_id: orgId },
        any: { field: 'bank_transaction_id', values: [...ids.slice(0, 5), 'bt_none'] },
      },
      {
        collection: 'bank_links',
        equalities: { org_id: orgId },
        any: { field: 'bank_transaction_id', values: [...ids, ...otherIds] },
        owner: orgId,
      },
      {
        collection: 'bank_transactions',
        equalities: {},
        any: { field: '_id', values: [...ids, ...otherIds] },
        fields: ['status', 'version'],
        owner: orgId,
      },
      // Fields asked in another order than stored, a nested object and array, one absent from most documents.
      {
        collection: 'bank_transactions',
        equalities: {},
        any: { field: '_id', values: ids },
        fields: ['extra', 'counterparty_name', 'booking_date', 'bank_reference'],
        owner: orgId,
      },
      {
        collection: 'ledger_entries',
        equalities: { org_id: orgId },
        any: { field: 'counterparty_id', values: [`cp_${uid}_1`, `cp_${uid}_2`] },
        fields: ['lines', 'reference', '_id'],
      },
      // What refreshCounterparties asks of the kept figures (a kind beside the list).
      {
        collection: 'ledger_entries',
        equalities: { org_id: orgId, status: 'posted' },
        any: { field: 'counterparty_id', values: [`cp_${uid}_0`, `cp_${uid}_2`, 'cp_none'] },
        fields: ['reference', 'counterparty_id'],
        owner: orgId,
      },
      {
        collection: 'bank_transactions',
        equalities: {},
        any: { field: '_id', values: [...ids.slice(2), ...otherIds.slice(0, 3)] },
        fields: ['org_id', 'amount_minor'],
      },
    ];
    for (const q of queries) {
      const [viaDriver, viaSql] = await both((port) => port.where(q));
      expect(viaDriver.length, JSON.stringify(q)).to.be.above(0);
      expect(canonical(viaSql), JSON.stringify(q)).to.deep.equal(canonical(viaDriver));
      if (q.owner) expect(viaDriver.every((d) => !('org_id' in d) || d.org_id === orgId)).to.equal(true);
    }
    const [empty, emptySql] = await both(
      (port) => port.where({ collection: 'bank_links', equalities: {}, any: { field: '_id', values: [] } }),
      false,
    );
    expect(empty).to.deep.equal([]);
    expect(emptySql).to.deep.equal([]);
  });

  it('where: equalities on fields of an embedded document, a number and a string', async () => {
    const q: WhereQuery = {
      collection: 'inbox_documents',
      equalities: { org_id: orgId, status: 'open', 'extracted.total_minor': 2_490, 'extracted.currency': 'EUR' },
      fields: ['received_at', 'extracted'],
    };
    const [viaDriver, viaSql] = await both((port) => port.where(q));
    expect(viaDriver.map((d) => String(d._id)).sort()).to.deep.equal([`doc_${uid}_1`, `doc_${uid}_6`]);
    expect(canonical(viaSql)).to.deep.equal(canonical(viaDriver));
  });

  it('findById, findOwnedById and findByIds: the document, projected; another organisation’s is not the owner’s', async () => {
    const id = `bt_${uid}_5_A1`;
    for (const projection of [undefined, { status: 1, amount_minor: 1 }, { status: 0 }]) {
      const [viaDriver, viaSql] = await both(
        (port) => port.findById('bank_transactions', id, projection),
        !projection || projection.status === 1,
      );
      expect(viaDriver, JSON.stringify(projection)).to.not.equal(null);
      expect(JSON.stringify(viaSql)).to.equal(JSON.stringify(viaDriver));
      // findOwnedById takes an inclusion projection only (it adds org_id).
      if (projection?.status === 0) continue;
      for (const org of [orgId, otherOrg]) {
        const [owned, ownedSql] = await both(
          (port) => port.findOwnedById('bank_transactions', org, id, projection),
          !projection || projection.status === 1,
        );
        expect(owned === null, `${org} ${JSON.stringify(projection)}`).to.equal(org !== orgId);
        expect(JSON.stringify(ownedSql)).to.equal(JSON.stringify(owned));
      }
    }
    const [missing, missingSql] = await both((port) => port.findById('bank_transactions', 'bt_none'));
    expect(missing).to.equal(null);
    expect(missingSql).to.equal(null);
    const ids = [id, `bt_${uid}_105_A1`, 'bt_none', `bt_${uid}_0_a1`];
    for (const options of [{}, { owner: orgId }, { fields: ['_id'] }, { fields: ['version'], owner: otherOrg }]) {
      const [viaDriver, viaSql] = await both((port) => port.findByIds('bank_transactions', ids, options));
      expect(viaDriver.length, JSON.stringify(options)).to.be.above(0);
      expect(canonical(viaSql), JSON.stringify(options)).to.deep.equal(canonical(viaDriver));
    }
  });

  it('versionsByIds: the owner’s documents’ versions by `_id`; another organisation’s and missing ones absent', async () => {
    const ids = [`bt_${uid}_5_A1`, `bt_${uid}_0_a1`, `bt_${uid}_105_A1`, 'bt_none'];
    const [viaDriver, viaSql] = await both((port) => port.versionsByIds('bank_transactions', orgId, ids));
    expect([...viaDriver].sort()).to.deep.equal([
      [`bt_${uid}_0_a1`, 1],
      [`bt_${uid}_5_A1`, 6],
    ]);
    expect([...viaSql].sort()).to.deep.equal([...viaDriver].sort());
    const [none, noneSql] = await both((port) => port.versionsByIds('bank_transactions', orgId, []), false);
    expect(none.size).to.equal(0);
    expect(noneSql.size).to.equal(0);
  });

  it('highest: the document with the highest number, by value not by text; another organisation’s and key’s left out', async () => {
    const step = (org: string, key: string, seq: number) => ({
      _id: `${key}#${String(seq).padStart(8, '0')}`,
      org_id: org,
      key,
      seq,
      total_minor: seq * 100,
    });
    const key = `${orgId}:agent:2026-02-03`;
    await db
      .collection('unattended_reservations')
      .insertMany([
        step(orgId, key, 9),
        step(orgId, key, 10),
        step(orgId, key, 2),
        step(orgId, `${key}x`, 11),
        step(otherOrg, `${otherOrg}:agent:2026-02-03`, 12),
      ] as never[]);
    const q = { collection: 'unattended_reservations', equalities: { org_id: orgId, key }, key: 'seq' };
    const [viaDriver, viaSql] = await both((port) => port.highest(q));
    expect(viaDriver).to.include({ seq: 10, total_minor: 1_000 });
    expect(viaSql).to.deep.equal(viaDriver);
    const none = { ...q, equalities: { org_id: otherOrg, key } };
    const [noneDriver, noneSql] = await both((port) => port.highest(none));
    expect(noneDriver).to.equal(null);
    expect(noneSql).to.equal(null);
  });

  it('repairRecords: the same transactions, entries and links', async () => {
    for (const counterparty of [`cp_${uid}_0`, `cp_${uid}_1`, 'cp_nobody']) {
      const [viaDriver, viaSql] = await both((port) => port.repairRecords(orgId, `ba_${uid}_a`, counterparty));
      const sorted = (scope: typeof viaDriver) => ({
        transactions: canonical(scope.transactions),
        entries: canonical(scope.entries),
        links: canonical(scope.links),
      });
      expect(sorted(viaSql), counterparty).to.deep.equal(sorted(viaDriver));
    }
  });

  it('accountReferences: string references only, the account’s only', async () => {
    const [viaDriver, viaSql] = await both((port) =>
      port.accountReferences(orgId, `ba_${uid}_a`, ['REF-0', 'REF-1', 'REF-2', 'REF-0', 'REF-none']),
    );
    expect(viaDriver.length).to.be.above(0);
    const byId = (rows: typeof viaDriver) => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(byId(viaSql)).to.deep.equal(byId(viaDriver));
  });

  it('sequenceMarks: the highest reservation and the highest at or before the cut-off', async () => {
    for (const cutoff of ['', '2026-01-01T00:00:00.500Z', '2026-01-01T00:00:02.000Z', '2027-01-01T00:00:00.000Z']) {
      const [viaDriver, viaSql] = await both((port) => port.sequenceMarks(orgId, cutoff));
      expect(viaSql, cutoff).to.deep.equal(viaDriver);
    }
    expect((await mongo.sequenceMarks(orgId, '2026-01-01T00:00:02.000Z')).final).to.equal(2);
    expect(await ferret.sequenceMarks(`${orgId}_none`, '')).to.deep.equal({ final: 0, highest: 0 });
  });

  it('reserveSequence, raced 200 times on each adapter: every number once, each loser told `taken`', async () => {
    for (const port of [mongo, ferret]) {
      const org = `org_port_${uid}_seq_${port.name}`;
      let highest = 0;
      for (let round = 0; round < 200; round += 1) {
        const answers = await Promise.all([port.reserveSequence(org), port.reserveSequence(org)]);
        const numbers = answers.filter((a): a is number => a !== 'taken');
        expect(numbers.length, `${port.name} round ${round}`).to.be.at.least(1);
        expect(new Set(numbers).size, `${port.name} round ${round}: no number twice`).to.equal(numbers.length);
        for (const n of numbers) expect(n, `${port.name} round ${round}`).to.be.above(highest);
        highest = Math.max(highest, ...numbers);
      }
      expect(await port.sequenceMarks(org, '')).to.deep.include({ highest });
      const stored = await db.collection('event_sequences').countDocuments({ org_id: org });
      expect(stored, `${port.name}: one reservation per number`).to.equal(highest);
    }
  });

  it('writeByIds: the same documents, key order included, and the same count, the FerretDB one in SQL', async () => {
    const when = new Date('2026-03-01T10:00:00.000Z');
    const seed = (p: string): Document[] => [
      { _id: `${p}_a`, org_id: orgId, amount_minor: 100, note: 'x', when, version: 3 },
      { _id: `${p}_b`, org_id: orgId, amount_minor: 100, note: 'x', when, version: 3 },
      { _id: `${p}_c`, org_id: orgId, amount_minor: 100, note: 'x', when, version: 3 },
      { _id: `${p}_d`, org_id: orgId, amount_minor: 100, note: 'x', when, version: 3 },
      { _id: `${p}_e`, org_id: orgId, amount_minor: 100, note: 'x', when, version: 3 },
      { _id: `${p}_f`, org_id: orgId, amount_minor: 100, note: 'x', when, version: 3 },
      { _id: `${p}_g`, org_id: otherOrg, amount_minor: 100, note: 'x', when, version: 3 },
      { _id: `${p}_h`, org_id: otherOrg, amount_minor: 100, note: 'x', when, version: 3 },
    ];
    const writes = (p: string) => [
      { id: `${p}_a`, guard: { field: 'version', value: 3 }, set: { amount_minor: 7.5, note: 'é "q"', version: 4 } },
      { id: `${p}_b`, guard: { field: 'version', value: 2 }, set: { amount_minor: 1, version: 3 } },
      { id: `${p}_c`, guard: { field: 'version', value: 3 }, set: { added: [1, { k: 'v' }], version: 4 } },
      { id: `${p}_d`, set: { when: new Date('2026-04-01T00:00:00.000Z'), amount_minor: null } },
      { id: `${p}_e`, guard: { field: 'version', value: 3 } },
      { id: `${p}_f`, guard: { field: 'version', value: 9 } },
      { id: `${p}_g`, guard: { field: 'version', value: 3 }, set: { amount_minor: 1, version: 4 } },
      { id: `${p}_h` },
      { id: `${p}_absent`, guard: { field: 'version', value: 1 }, set: { amount_minor: 1, version: 2 } },
      { id: `${p}_absent2` },
    ];
    const results: Array<{ made: number; docs: string[] }> = [];
    for (const port of [mongo, ferret]) {
      const p = `wbi_${uid}_${port.name}`;
      const collection = `write_by_ids_${uid}_${port.name}`;
      await db.collection(collection).insertMany(seed(p));
      // A read first: the FerretDB adapter learns a new collection's table on the call after the one that missed it.
      await ferret.findByIds(collection, [`${p}_a`]);
      const written = sqlStats(sql).written;
      const made = await port.writeByIds(collection, orgId, writes(p));
      if (port === ferret) expect(sqlStats(sql).written, 'written in SQL').to.be.above(written);
      const docs = await db.collection(collection).find({}).toArray();
      results.push({ made, docs: canonical(docs).map((d) => d.split(p).join('P')) });
    }
    expect(results[0]!.made).to.equal(4);
    expect(results[1]).to.deep.equal(results[0]);
  });

  it('insertTogether: all or none in SQL, a duplicate refused whole; the mongo adapter declines and writes nothing', async () => {
    expect(mongo.insertsTogether).to.equal(false);
    expect(ferret.insertsTogether).to.equal(true);
    const docs = (n: number) => [
      { collection: 'bank_links', docs: [{ _id: `ln_${uid}_t${n}`, org_id: orgId, amount_minor: n }] },
      { collection: 'job_results', docs: [{ _id: `job_${uid}_t${n}`, org_id: orgId, note: 'é "q"' }] },
    ];
    expect(await mongo.insertTogether(docs(1))).to.equal('declined');
    expect(await db.collection('bank_links').findOne({ _id: `ln_${uid}_t1` as never })).to.equal(null);
    expect(await ferret.insertTogether(docs(2))).to.equal('stored');
    expect(await db.collection('job_results').findOne({ _id: `job_${uid}_t2` as never })).to.deep.equal(
      docs(2)[1]!.docs[0],
    );
    const clash = [{ collection: 'bank_links', docs: [{ _id: `ln_${uid}_t3`, org_id: orgId }] }, docs(2)[1]!];
    expect(await ferret.insertTogether(clash)).to.equal('duplicate');
    expect(await db.collection('bank_links').findOne({ _id: `ln_${uid}_t3` as never })).to.equal(null);
  });

  it('refreshStatistics: the FerretDB adapter analyses the tables it knows; the mongo adapter has nothing to do', async () => {
    expect(await mongo.refreshStatistics(['bank_links'])).to.deep.equal([]);
    expect(await ferret.refreshStatistics(['bank_links', 'bank_links', 'no_such_collection'])).to.deep.equal([
      'bank_links',
    ]);
  });
});
