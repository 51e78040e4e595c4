// The repair at scale (100,000 transactions against 100,000 entries of one
// counterparty), and the demo books generator it is exercised with: same
// seed, same books; balanced entries; valid links; every repair plannable.
import { expect } from 'chai';
import type { BooksFile } from '../../shared/domain/books-file.js';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry } from '../../shared/domain/books.js';
import { compareIds, openAmountMinor } from '../../shared/domain/books.js';
import { allocateFifo } from '../../shared/domain/fifo-allocation.js';
import { planLinkRepair, type LinkRepairInput, type RepairAction } from '../../shared/kinds/ledger-link-repair/plan.js';
import { generateBooks } from '../../shared/demo/books-generator.js';
import { groupBy } from '../../shared/group-by.js';
import { applyActions } from '../helpers/link-actions.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const SETTLEMENT = ['1400', '1600'];

// ---------------------------------------------------------------------------
// A dedicated builder: one account, one counterparty, n transactions and n
// in-scope entries. Links start as the FIFO allocation (so the expected
// target is known), then links of unreconciled transactions are broken.

const isoDay = (day: number): string => new Date(Date.UTC(2024, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
const pad = (n: number): string => String(n).padStart(6, '0');

interface BigBooks {
  input: LinkRepairInput;
  /** The FIFO links every walked transaction should end with: txn → entry → amount. */
  expected: Map<string, Map<string, number>>;
}

function bigBooks(n: number, seed: number): BigBooks {
  const rand = mulberry32(seed);
  const int = (min: number, max: number): number => min + Math.floor(rand() * (max - min + 1));
  const account: BankAccount = {
    id: 'ba_big',
    name: 'Big',
    currency: 'EUR',
    ledger_account: '1200',
    reconciled_through: null,
    opening_balance_minor: 0,
    version: 1,
  };
  const span = 700;

  const entries: LedgerEntry[] = [];
  const entry = (
    id: string,
    dayNo: number,
    amount: number,
    receivable: boolean,
    more: Partial<LedgerEntry> = {},
  ): LedgerEntry => ({
    id,
    entry_date: isoDay(dayNo),
    description: '',
    reference: '',
    counterparty_id: 'cp_big',
    currency: 'EUR',
    lines: receivable
      ? [
          { account: '1400', debit_minor: amount, credit_minor: 0 },
          { account: '8400', debit_minor: 0, credit_minor: amount },
        ]
      : [
          { account: '4000', debit_minor: amount, credit_minor: 0 },
          { account: '1600', debit_minor: 0, credit_minor: amount },
        ],
    status: 'posted',
    reversal_of: null,
    reversed_by: null,
    version: 1,
    ...more,
  });
  for (let i = 0; i < n; i += 1)
    entries.push(entry(`le_${pad(i)}`, Math.floor((i * span) / n), int(1, 50_000), rand() < 0.7));
  // Out of scope: reversed entries and another counterparty's invoices.
  const reversedIds: string[] = [];
  const foreignIds: string[] = [];
  for (let i = 0; i < 200; i += 1) {
    reversedIds.push(`le_rev_${pad(i)}`);
    entries.push(
      entry(`le_rev_${pad(i)}`, int(0, span), int(1, 50_000), true, {
        status: 'reversed',
        reversed_by: `le_rr_${pad(i)}`,
      }),
    );
    foreignIds.push(`le_foreign_${pad(i)}`);
    entries.push(entry(`le_foreign_${pad(i)}`, int(0, span), int(1, 50_000), true, { counterparty_id: 'cp_other' }));
  }

  const transactions: BankTransaction[] = [];
  const reconciledThrough = isoDay(Math.floor(span / 10));
  for (let i = 0; i < n; i += 1) {
    const bookingDate = isoDay(Math.floor((i * span) / n) + int(0, 3));
    const inflow = rand() < 0.7;
    transactions.push({
      id: `bt_${pad(i)}`,
      bank_account_id: account.id,
      booking_date: bookingDate,
      amount_minor: (inflow ? 1 : -1) * int(1, 52_000), // a little more than the entries: the tail stays unallocated
      currency: 'EUR',
      counterparty_id: 'cp_big',
      counterparty_name: 'Big Customer',
      remittance_info: '',
      status: bookingDate <= reconciledThrough ? 'reconciled' : 'unreconciled',
      reconciliation_id: bookingDate <= reconciledThrough ? 'rec_big' : null,
      version: 1,
    });
  }

  // FIFO over everything, per direction, in (date, id) order.
  const ordered = [...transactions].sort(
    (a, b) => compareIds(a.booking_date, b.booking_date) || compareIds(a.id, b.id),
  );
  const inScope = entries.slice(0, n);
  const expected = new Map<string, Map<string, number>>();
  const links: BankLink[] = [];
  for (const sign of [1, -1]) {
    const result = allocateFifo(
      ordered
        .filter((t) => Math.sign(t.amount_minor) === sign)
        .map((t) => ({ id: t.id, amount_minor: Math.abs(t.amount_minor) })),
      inScope
        .filter((e) => Math.sign(openAmountMinor(e, SETTLEMENT)) === sign)
        .map((e) => ({ id: e.id, amount_minor: Math.abs(openAmountMinor(e, SETTLEMENT)) })),
    );
    for (const a of result.allocations) {
      links.push({
        id: `lnk_${pad(links.length)}`,
        bank_transaction_id: a.transaction_id,
        ledger_entry_id: a.entry_id,
        amount_minor: a.amount_minor,
        created_at: '2025-01-01T00:00:00.000Z',
        created_by: 'seed',
        version: 1,
      });
      let pairs = expected.get(a.transaction_id);
      if (!pairs) expected.set(a.transaction_id, (pairs = new Map<string, number>()));
      pairs.set(a.entry_id, a.amount_minor);
    }
  }

  // Break links of unreconciled transactions.
  const status = new Map(transactions.map((t) => [t.id, t.status]));
  const sameDirection = (entryId: string): string[] => {
    const sign = Math.sign(openAmountMinor(inScope[Number(entryId.slice(3))]!, SETTLEMENT));
    const pool: string[] = [];
    for (let k = 0; k < 5; k += 1) {
      const candidate = inScope[int(0, n - 1)]!;
      if (Math.sign(openAmountMinor(candidate, SETTLEMENT)) === sign) pool.push(candidate.id);
    }
    return pool;
  };
  const kept: BankLink[] = [];
  for (const link of links) {
    if (status.get(link.bank_transaction_id) === 'reconciled') {
      kept.push(link);
      continue;
    }
    const r = rand();
    if (r < 0.3) {
      const other = sameDirection(link.ledger_entry_id)[0];
      kept.push(other ? { ...link, ledger_entry_id: other } : link);
    } else if (r < 0.35) kept.push({ ...link, ledger_entry_id: foreignIds[int(0, foreignIds.length - 1)]! });
    else if (r < 0.37) kept.push({ ...link, ledger_entry_id: reversedIds[int(0, reversedIds.length - 1)]! });
    else if (r < 0.47 && link.amount_minor >= 2)
      kept.push({ ...link, amount_minor: Math.floor(link.amount_minor / 2) });
    else if (r < 0.52)
      continue; // missing
    else if (r < 0.55) {
      // The same pair split into two links.
      const half = Math.floor(link.amount_minor / 2);
      if (half > 0)
        kept.push(
          { ...link, amount_minor: half },
          {
            ...link,
            id: `${link.id}_b`,
            amount_minor: link.amount_minor - half,
            created_at: '2025-01-02T00:00:00.000Z',
          },
        );
      else kept.push(link);
    } else kept.push(link);
  }
  // Links on transactions FIFO leaves unallocated (the tail): all released.
  let extra = 0;
  for (const t of transactions) {
    if (t.status === 'reconciled' || expected.has(t.id) || rand() < 0.5) continue;
    const sign = Math.sign(t.amount_minor);
    let target: LedgerEntry | undefined;
    for (let k = int(0, n - 1), tries = 0; tries < 50 && !target; k = (k + 1) % n, tries += 1) {
      if (Math.sign(openAmountMinor(inScope[k]!, SETTLEMENT)) === sign) target = inScope[k];
    }
    if (target) {
      extra += 1;
      kept.push({
        id: `lnk_tail_${pad(extra)}`,
        bank_transaction_id: t.id,
        ledger_entry_id: target.id,
        amount_minor: Math.min(Math.abs(t.amount_minor), 1_000),
        created_at: '2025-01-03T00:00:00.000Z',
        created_by: 'seed',
        version: 1,
      });
    }
  }

  return {
    input: {
      account,
      counterparty_id: 'cp_big',
      as_of: isoDay(span + 10),
      settlement_accounts: SETTLEMENT,
      transactions,
      entries,
      links: kept,
    },
    expected,
  };
}

describe('link repair at scale', () => {
  it('plans 100,000 transactions against 100,000 entries, and the applied plan restores the FIFO links exactly', function () {
    this.timeout(120_000);
    const { input, expected } = bigBooks(100_000, 20_250_101);
    const started = performance.now();
    const result = planLinkRepair(input);
    const elapsed = performance.now() - started;
    if (result.outcome !== 'staged')
      expect.fail(`expected staged, got ${result.outcome} ${JSON.stringify(result.blockers)}`);
    console.log(
      `      planned ${input.transactions.length} transactions × ${input.entries.length} entries → ${result.plan.actions.length} actions in ${elapsed.toFixed(0)} ms`,
    );

    // Summary counts and amounts are those of the actions.
    const count = (kind: RepairAction['kind']) => result.plan.actions.filter((a) => a.kind === kind);
    const total = (actions: RepairAction[]) => actions.reduce((s, a) => s + a.amount_minor, 0);
    expect(result.plan.summary.moves).to.equal(count('move').length);
    expect(result.plan.summary.links).to.equal(count('link').length);
    expect(result.plan.summary.unlinks).to.equal(count('unlink').length);
    expect(result.plan.summary.moved_minor).to.equal(total(count('move')));
    expect(result.plan.summary.linked_minor).to.equal(total(count('link')));
    expect(result.plan.summary.unlinked_minor).to.equal(total(count('unlink')));
    expect(result.plan.summary.moves).to.be.greaterThan(1_000);
    expect(result.plan.summary.links).to.be.greaterThan(1_000);
    expect(result.plan.summary.unlinks).to.be.greaterThan(10);
    expect(
      result.plan.actions.filter((a) => !Number.isSafeInteger(a.amount_minor) || a.amount_minor <= 0),
    ).to.deep.equal([]);

    // The locks list every named id once, sorted.
    const sortedUnique = (ids: string[]) => [...new Set(ids)].sort(compareIds);
    expect(result.locks.transaction_ids).to.deep.equal(
      sortedUnique(result.plan.actions.map((a) => a.bank_transaction_id)),
    );
    expect(result.locks.entry_ids).to.deep.equal(
      sortedUnique(
        result.plan.actions.flatMap((a) =>
          a.kind === 'move' ? [a.from_ledger_entry_id, a.to_ledger_entry_id] : [a.ledger_entry_id],
        ),
      ),
    );

    // Applied: every walked transaction holds exactly its FIFO allocation;
    // reconciled links are untouched.
    const after = applyActions(input.links, result.plan.actions);
    const status = new Map(input.transactions.map((t) => [t.id, t.status]));
    const actual = new Map<string, Map<string, number>>();
    for (const l of after) {
      if (status.get(l.bank_transaction_id) === 'reconciled') continue;
      let pairs = actual.get(l.bank_transaction_id);
      if (!pairs) actual.set(l.bank_transaction_id, (pairs = new Map<string, number>()));
      pairs.set(l.ledger_entry_id, (pairs.get(l.ledger_entry_id) ?? 0) + l.amount_minor);
    }
    const walkedExpected = new Map([...expected].filter(([id]) => status.get(id) !== 'reconciled'));
    expect(actual.size).to.equal(walkedExpected.size);
    const differing: string[] = [];
    for (const [transactionId, pairs] of walkedExpected) {
      const got = actual.get(transactionId);
      if (!got || got.size !== pairs.size || [...pairs].some(([entryId, amount]) => got.get(entryId) !== amount))
        differing.push(transactionId);
    }
    expect(differing).to.deep.equal([]);
    const reconciledLinks = (links: readonly BankLink[]) =>
      links.filter((l) => status.get(l.bank_transaction_id) === 'reconciled');
    expect(reconciledLinks(after)).to.deep.equal(reconciledLinks(input.links));

    // And planning again finds nothing left to do.
    const again = planLinkRepair({ ...input, links: after });
    expect(again.outcome).to.equal('noop');
    expect(again.plan!.summary.unallocated_transaction_minor).to.equal(
      result.plan.summary.unallocated_transaction_minor,
    );
    expect(again.plan!.summary.uncovered_entry_minor).to.equal(result.plan.summary.uncovered_entry_minor);
  });
});

// ---------------------------------------------------------------------------
// The demo books generator.

type FileEntry = BooksFile['ledger_entries'][number];
type FileTransaction = BooksFile['bank_transactions'][number];
type FileLink = BooksFile['bank_links'][number];

const asEntry = (e: FileEntry): LedgerEntry => ({ version: 1, reversal_of: null, reversed_by: null, ...e });
const asTransaction = (t: FileTransaction): BankTransaction => ({ version: 1, reconciliation_id: null, ...t });
const asLink = (l: FileLink): BankLink => ({ version: 1, ...l });

/** What the worker loads for one repair (docs/reference/http-api.md §8, the caller's contract). */
function repairInputs(books: BooksFile, asOf: string): LinkRepairInput[] {
  const entries = books.ledger_entries.map(asEntry);
  const entryById = new Map(entries.map((e) => [e.id, e]));
  const entriesByCounterparty = groupBy(entries, (e) => e.counterparty_id);
  const links = books.bank_links.map(asLink);
  const linksByTransaction = groupBy(links, (l) => l.bank_transaction_id);
  const linksByEntry = groupBy(links, (l) => l.ledger_entry_id);
  const transactionsByPair = groupBy(
    books.bank_transactions.map(asTransaction),
    (t) => `${t.bank_account_id} ${t.counterparty_id}`,
  );
  const inputs: LinkRepairInput[] = [];
  for (const [pair, transactions] of transactionsByPair) {
    const [accountId, counterpartyId] = pair.split(' ') as [string, string];
    const account = books.bank_accounts.find((a) => a.id === accountId)!;
    const own = entriesByCounterparty.get(counterpartyId) ?? [];
    const pairLinks = new Map<string, BankLink>();
    for (const t of transactions) for (const l of linksByTransaction.get(t.id) ?? []) pairLinks.set(l.id, l);
    for (const e of own) for (const l of linksByEntry.get(e.id) ?? []) pairLinks.set(l.id, l);
    const referenced = [...pairLinks.values()]
      .map((l) => entryById.get(l.ledger_entry_id)!)
      .filter((e) => e.counterparty_id !== counterpartyId);
    inputs.push({
      account: { version: 1, ...account },
      counterparty_id: counterpartyId,
      as_of: asOf,
      settlement_accounts: books.org.settlement_accounts,
      transactions,
      entries: [...own, ...referenced],
      links: [...pairLinks.values()],
    });
  }
  return inputs;
}

/** docs/reference/http-api.md §10 invoice number normalisation, as far as the demo data needs it. */
const invoiceKey = (n: string): string =>
  n
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]/gu, '')
    .replace(/^0+/, '');

describe('demo books generator', () => {
  it('is deterministic: the same org, size and seed give byte-identical JSON; another seed or org gives other books', () => {
    const a = JSON.stringify(generateBooks({ org_id: 'acme', size: 800, seed: 7 }));
    expect(JSON.stringify(generateBooks({ org_id: 'acme', size: 800, seed: 7 }))).to.equal(a);
    expect(JSON.stringify(generateBooks({ org_id: 'acme', size: 800, seed: 8 }))).to.not.equal(a);
    expect(JSON.stringify(generateBooks({ org_id: 'acme2', size: 800, seed: 7 }))).to.not.equal(
      a.replaceAll('acme', 'acme2'),
    );
  });

  it('refuses a size that is not a positive integer and an org id that cannot be part of an id', () => {
    expect(() => generateBooks({ org_id: 'acme', size: 0, seed: 1 })).to.throw(RangeError);
    expect(() => generateBooks({ org_id: 'acme', size: 1.5, seed: 1 })).to.throw(RangeError);
    expect(() => generateBooks({ org_id: 'a b', size: 10, seed: 1 })).to.throw(RangeError);
  });

  for (const size of [1, 60, 3_000]) {
    it(`size ${size}: balanced entries, org-unique ids, valid links, consistent reconciliation and reversals`, () => {
      const books = generateBooks({ org_id: 'org_7', size, seed: 99 });
      const { org } = books;
      expect(org).to.deep.include({
        id: 'org_7',
        base_currency: 'EUR',
        settlement_accounts: ['1400', '1600'],
        require_distinct_approver: true,
      });
      expect(org.lock_date).to.match(/^2025-\d\d-\d\d$/);
      expect(books.bank_accounts.length).to.be.within(1, 2);
      for (const a of books.bank_accounts) expect(a).to.deep.include({ currency: 'EUR' });
      expect(books.bank_accounts[0]!.ledger_account).to.equal('1200');
      if (size >= 60) expect(books.bank_transactions.length).to.be.within(size * 0.6, size * 1.4);

      // Ids: globally unique, typed prefix, embedding the org id.
      const ids = [
        ...books.ledger_entries.map((r) => r.id),
        ...books.bank_accounts.map((r) => r.id),
        ...books.bank_transactions.map((r) => r.id),
        ...books.bank_links.map((r) => r.id),
        ...books.inbox_documents.map((r) => r.id),
      ];
      expect(new Set(ids).size).to.equal(ids.length);
      for (const id of ids) expect(id).to.match(/^(le|ba|bt|lnk|doc)_org_7_[0-9A-Za-z_]+$/);
      for (const e of books.ledger_entries) expect(e.counterparty_id).to.match(/^cp_org_7_/);

      // Entries balance, in integer minor units; dates are calendar dates.
      const entryById = new Map(books.ledger_entries.map((e) => [e.id, e]));
      for (const e of books.ledger_entries) {
        const debit = e.lines.reduce((s, l) => s + l.debit_minor, 0);
        const credit = e.lines.reduce((s, l) => s + l.credit_minor, 0);
        expect(debit, e.id).to.equal(credit);
        expect(Number.isSafeInteger(debit) && debit > 0).to.equal(true);
        expect(e.entry_date).to.match(/^2025-\d\d-\d\d$/);
        expect(new Date(e.entry_date).toISOString().slice(0, 10)).to.equal(e.entry_date);
      }
      // Reversed pairs point at each other.
      const reversed = books.ledger_entries.filter((e) => e.status === 'reversed');
      expect(reversed.length).to.be.greaterThan(0);
      for (const e of reversed) {
        const reversal = entryById.get(e.reversed_by!)!;
        expect(reversal.reversal_of).to.equal(e.id);
        expect(reversal.status).to.equal('posted');
        expect(reversal.lines).to.deep.equal(
          e.lines.map((l) => ({ account: l.account, debit_minor: l.credit_minor, credit_minor: l.debit_minor })),
        );
      }

      // Links: positive integers, known ids, Σ per transaction ≤ |amount|;
      // reconciled transactions fully linked, never to a reversed entry.
      const transactionById = new Map(books.bank_transactions.map((t) => [t.id, t]));
      const linked = new Map<string, number>();
      for (const l of books.bank_links) {
        expect(Number.isSafeInteger(l.amount_minor) && l.amount_minor > 0, l.id).to.equal(true);
        expect(transactionById.has(l.bank_transaction_id), l.id).to.equal(true);
        expect(entryById.has(l.ledger_entry_id), l.id).to.equal(true);
        expect(l.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        linked.set(l.bank_transaction_id, (linked.get(l.bank_transaction_id) ?? 0) + l.amount_minor);
        const t = transactionById.get(l.bank_transaction_id)!;
        // Blocked customers (cp_…_x…) hold the one deliberately frozen link to a reversed entry.
        if (t.status === 'reconciled' && !(t.counterparty_id ?? '').startsWith('cp_org_7_x')) {
          expect(entryById.get(l.ledger_entry_id)!.status, l.id).to.equal('posted');
          expect(entryById.get(l.ledger_entry_id)!.counterparty_id, l.id).to.equal(t.counterparty_id);
        }
      }
      for (const t of books.bank_transactions) {
        expect(Number.isSafeInteger(t.amount_minor) && t.amount_minor !== 0).to.equal(true);
        expect(linked.get(t.id) ?? 0, t.id).to.be.at.most(Math.abs(t.amount_minor));
        if (t.status === 'reconciled') {
          expect(linked.get(t.id), t.id).to.equal(Math.abs(t.amount_minor));
          expect(t.reconciliation_id).to.be.a('string');
        }
      }

      // Each account's reconciled_through matches its reconciled transactions.
      for (const account of books.bank_accounts) {
        const own = books.bank_transactions.filter((t) => t.bank_account_id === account.id);
        const done = own.filter((t) => t.status === 'reconciled');
        if (!account.reconciled_through) {
          expect(done).to.deep.equal([]);
          continue;
        }
        const through = account.reconciled_through.date;
        for (const t of own) expect(t.status === 'reconciled', t.id).to.equal(t.booking_date <= through);
        expect(account.reconciled_through.balance_minor).to.equal(
          account.opening_balance_minor + done.reduce((s, t) => s + t.amount_minor, 0),
        );
      }
    });
  }

  it('has real work for every operation: broken links, reconciled history, reversible entries, and inbox duplicates of each kind', () => {
    const books = generateBooks({ org_id: 'demo', size: 2_000, seed: 1 });
    const transactions = books.bank_transactions;
    expect(transactions.filter((t) => t.status === 'reconciled').length).to.be.greaterThan(50);
    expect(transactions.filter((t) => t.status === 'unreconciled').length).to.be.greaterThan(transactions.length / 2);
    expect(transactions.some((t) => t.amount_minor > 0) && transactions.some((t) => t.amount_minor < 0)).to.equal(true);

    // Broken links: to another counterparty's entry, and to a reversed entry.
    const entryById = new Map(books.ledger_entries.map((e) => [e.id, e]));
    const transactionById = new Map(transactions.map((t) => [t.id, t]));
    const target = (l: FileLink) => entryById.get(l.ledger_entry_id)!;
    expect(
      books.bank_links.some(
        (l) => target(l).counterparty_id !== transactionById.get(l.bank_transaction_id)!.counterparty_id,
      ),
    ).to.equal(true);
    expect(books.bank_links.some((l) => target(l).status === 'reversed')).to.equal(true);
    // Reversible: posted, not a reversal, no link from a reconciled transaction.
    const reconciledTargets = new Set(
      books.bank_links
        .filter((l) => transactionById.get(l.bank_transaction_id)!.status === 'reconciled')
        .map((l) => l.ledger_entry_id),
    );
    expect(
      books.ledger_entries.filter((e) => e.status === 'posted' && !e.reversal_of && !reconciledTargets.has(e.id))
        .length,
    ).to.be.greaterThan(10);

    // Inbox: all statuses, and each duplicate rule has at least one pair.
    const docs = books.inbox_documents;
    expect(new Set(docs.map((d) => d.status))).to.deep.equal(new Set(['open', 'booked', 'archived']));
    const pairsBy = (key: (d: (typeof docs)[number]) => string | null): number =>
      [
        ...groupBy(
          docs.filter((d) => key(d) !== null),
          (d) => key(d)!,
        ).values(),
      ].filter((g) => g.length > 1).length;
    expect(pairsBy((d) => d.file.sha256)).to.be.greaterThan(0);
    const vendor = (d: (typeof docs)[number]) =>
      d.extracted.vendor_tax_id
        ? `tax:${d.extracted.vendor_tax_id.toUpperCase().replace(/[^A-Z0-9]/g, '')}`
        : d.extracted.vendor_name
          ? `name:${d.extracted.vendor_name
              .toLowerCase()
              .replace(/[^\p{L}\p{N} ]/gu, '')
              .replace(/\s+/g, ' ')
              .trim()}`
          : null;
    // Same vendor and invoice number written differently (e.g. "RE-0042" / "re 0042").
    const differentlyWritten = [
      ...groupBy(
        docs.filter((d) => vendor(d) && d.extracted.invoice_number),
        (d) => `${vendor(d)} ${invoiceKey(d.extracted.invoice_number!)}`,
      ).values(),
    ].filter((g) => new Set(g.map((d) => d.extracted.invoice_number)).size > 1);
    expect(differentlyWritten.length).to.be.greaterThan(0);
    // Same vendor and amount, invoice dates 1–3 days apart, different files.
    const sameAmount = [
      ...groupBy(
        docs.filter((d) => vendor(d) && d.extracted.total_minor !== undefined),
        (d) => `${vendor(d)} ${d.extracted.total_minor}`,
      ).values(),
    ].filter((g) =>
      g.some((a) =>
        g.some((b) => {
          if (!a.extracted.invoice_date || !b.extracted.invoice_date || a.file.sha256 === b.file.sha256) return false;
          const days = (Date.parse(b.extracted.invoice_date) - Date.parse(a.extracted.invoice_date)) / 86_400_000;
          return days >= 1 && days <= 3;
        }),
      ),
    );
    expect(sameAmount.length).to.be.greaterThan(0);
  });

  it('gives every account + counterparty but the blocked customers (cp_…_x…) a plannable repair: some staged, some noop, and applied plans replan to noop', function () {
    this.timeout(120_000);
    const books = generateBooks({ org_id: 'demo', size: 20_000, seed: 5 });
    const outcomes = { staged: 0, noop: 0, blocked: 0 };
    for (const input of repairInputs(books, '2025-12-31')) {
      const result = planLinkRepair(input);
      outcomes[result.outcome] += 1;
      const blockedByDesign = input.counterparty_id.startsWith('cp_demo_x');
      expect(result.outcome === 'blocked', input.counterparty_id).to.equal(blockedByDesign);
      if (blockedByDesign) continue;
      if (result.outcome === 'blocked')
        expect.fail(`${input.account.id} ${input.counterparty_id}: ${JSON.stringify(result.blockers)}`);
      if (result.outcome === 'staged') {
        const again = planLinkRepair({ ...input, links: applyActions(input.links, result.plan.actions) });
        expect(again.outcome, `${input.account.id} ${input.counterparty_id}`).to.equal('noop');
      }
    }
    expect(outcomes.staged).to.be.greaterThan(20);
    expect(outcomes.noop).to.be.greaterThan(20);
    expect(outcomes.blocked).to.equal(80); // one blocked customer per 250 of size
  });
});
