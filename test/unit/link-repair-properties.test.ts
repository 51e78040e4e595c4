// Properties of the FIFO walk and the link repair (docs/reference/http-api.md §8, §13.2.2) over
// random small books: allocations stay within amounts and capacities,
// applying a plan and planning again gives `noop`, and the input order never
// changes the plan.
import { expect } from 'chai';
import fc from 'fast-check';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry, LedgerLine } from '../../shared/domain/books.js';
import { openAmountMinor } from '../../shared/domain/books.js';
import { allocateFifo } from '../../shared/domain/fifo-allocation.js';
import { planLinkRepair, type LinkRepairInput } from '../../shared/kinds/ledger-link-repair/plan.js';
import { applyActions } from '../helpers/link-actions.js';
import * as records from '../helpers/records.js';

const SETTLEMENT = ['1400', '1600'];
const AS_OF = '2025-01-25';
const ACCOUNT: BankAccount = records.account();

// ---------------------------------------------------------------------------
// Random books around account ba_main and counterparty cp_1.

const day = (d: number): string => `2025-01-${String(d).padStart(2, '0')}`;
const pad = (n: number): string => String(n).padStart(3, '0');

const entrySpec = fc.record({
  kind: fc.constantFrom(
    'receivable',
    'receivable',
    'receivable',
    'payable',
    'payable',
    'payable',
    'reversed',
    'reversal',
    'no_settlement',
  ),
  counterparty: fc.constantFrom('cp_1', 'cp_1', 'cp_1', 'cp_2'),
  day: fc.integer({ min: 1, max: 28 }),
  amount: fc.integer({ min: 1, max: 400 }),
  usd: fc.integer({ min: 0, max: 24 }).map((x) => x === 0),
});

const transactionSpec = fc.record({
  account: fc.constantFrom('ba_main', 'ba_main', 'ba_main', 'ba_main', 'ba_other'),
  counterparty: fc.constantFrom('cp_1', 'cp_1', 'cp_1', 'cp_1', 'cp_2'),
  day: fc.integer({ min: 1, max: 28 }),
  amount: fc.integer({ min: -500, max: 500 }),
  reconciled: fc.integer({ min: 0, max: 4 }).map((x) => x === 0),
  usd: fc.integer({ min: 0, max: 39 }).map((x) => x === 0),
  passed: fc.integer({ min: 0, max: 5 }).map((x) => x !== 0),
});

const linkSpec = fc.record({
  transaction: fc.nat(),
  entry: fc.nat(),
  amount: fc.integer({ min: 1, max: 300 }),
  hour: fc.integer({ min: 0, max: 3 }),
});

function lines(kind: string, amount: number): LedgerLine[] {
  const pair = (debit: string, credit: string): LedgerLine[] => [
    { account: debit, debit_minor: amount, credit_minor: 0 },
    { account: credit, debit_minor: 0, credit_minor: amount },
  ];
  if (kind === 'payable') return pair('4000', '1600');
  if (kind === 'no_settlement') return pair('6000', '1200');
  return pair('1400', '8400'); // receivable, reversed, reversal (of a credit note)
}

const booksArb: fc.Arbitrary<LinkRepairInput> = fc
  .record({
    entries: fc.array(entrySpec, { minLength: 1, maxLength: 12 }),
    transactions: fc.array(transactionSpec, { minLength: 1, maxLength: 10 }),
    links: fc.array(linkSpec, { maxLength: 16 }),
  })
  .map((spec) => {
    const entries: LedgerEntry[] = spec.entries.map((e, i) => ({
      id: `le_${pad(i)}`,
      entry_date: day(e.day),
      description: '',
      reference: '',
      counterparty_id: e.counterparty,
      currency: e.usd ? 'USD' : 'EUR',
      lines: lines(e.kind, e.amount),
      status: e.kind === 'reversed' ? 'reversed' : 'posted',
      reversal_of: e.kind === 'reversal' ? 'le_999' : null,
      reversed_by: e.kind === 'reversed' ? 'le_998' : null,
      version: 1,
    }));
    const transactions: BankTransaction[] = spec.transactions.map((t, i) => ({
      id: `bt_${pad(i)}`,
      bank_account_id: t.account,
      booking_date: day(t.day),
      amount_minor: t.amount,
      currency: t.usd ? 'USD' : 'EUR',
      counterparty_id: t.counterparty,
      counterparty_name: '',
      remittance_info: '',
      status: t.reconciled ? 'reconciled' : 'unreconciled',
      reconciliation_id: t.reconciled ? 'rec_1' : null,
      version: 1,
    }));
    const links: BankLink[] = spec.links.map((l, i) => ({
      id: `lnk_${pad(i)}`,
      bank_transaction_id: transactions[l.transaction % transactions.length]!.id,
      ledger_entry_id: entries[l.entry % entries.length]!.id,
      amount_minor: l.amount,
      created_at: `2025-02-01T0${l.hour}:00:00.000Z`,
      created_by: 'alice',
      version: 1,
    }));
    return {
      account: ACCOUNT,
      counterparty_id: 'cp_1',
      as_of: AS_OF,
      settlement_accounts: SETTLEMENT,
      // A transaction the caller did not load is simply absent; its links stay.
      transactions: transactions.filter((_, i) => spec.transactions[i]!.passed),
      entries,
      links,
    };
  });

// ---------------------------------------------------------------------------
// An independent reading of the scope (docs/reference/http-api.md §8), and the apply step (§5.5).

function inScopeEntries(books: LinkRepairInput): Map<string, number> {
  const open = new Map<string, number>();
  for (const e of books.entries) {
    const amount = openAmountMinor(e, books.settlement_accounts);
    if (
      e.counterparty_id === 'cp_1' &&
      e.status === 'posted' &&
      !e.reversal_of &&
      e.entry_date <= books.as_of &&
      amount !== 0
    )
      open.set(e.id, amount);
  }
  return open;
}

function walkedTransactions(books: LinkRepairInput): BankTransaction[] {
  return books.transactions.filter(
    (t) =>
      t.bank_account_id === 'ba_main' &&
      t.counterparty_id === 'cp_1' &&
      t.booking_date <= books.as_of &&
      t.status === 'unreconciled',
  );
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// ---------------------------------------------------------------------------

describe('FIFO allocation properties', () => {
  const items = (prefix: string) =>
    fc
      .array(fc.integer({ min: 0, max: 1_000 }), { maxLength: 30 })
      .map((amounts) => amounts.map((amount_minor, i) => ({ id: `${prefix}${i}`, amount_minor })));

  it('never allocates more than a transaction amount or an entry capacity, and allocates min(Σ amounts, Σ capacities)', () => {
    fc.assert(
      fc.property(items('t'), items('e'), (transactions, entries) => {
        const result = allocateFifo(transactions, entries);
        const perTransaction = new Map<string, number>();
        const perEntry = new Map<string, number>();
        for (const a of result.allocations) {
          expect(a.amount_minor).to.be.greaterThan(0);
          perTransaction.set(a.transaction_id, (perTransaction.get(a.transaction_id) ?? 0) + a.amount_minor);
          perEntry.set(a.entry_id, (perEntry.get(a.entry_id) ?? 0) + a.amount_minor);
        }
        transactions.forEach((t, i) => {
          expect(perTransaction.get(t.id) ?? 0).to.be.at.most(t.amount_minor);
          expect((perTransaction.get(t.id) ?? 0) + result.transaction_remainders[i]!).to.equal(t.amount_minor);
        });
        entries.forEach((e, i) => {
          expect(perEntry.get(e.id) ?? 0).to.be.at.most(e.amount_minor);
          expect((perEntry.get(e.id) ?? 0) + result.entry_remainders[i]!).to.equal(e.amount_minor);
        });
        const total = result.allocations.reduce((s, a) => s + a.amount_minor, 0);
        const sum = (xs: { amount_minor: number }[]) => xs.reduce((s, x) => s + x.amount_minor, 0);
        expect(total).to.equal(Math.min(sum(transactions), sum(entries)));
      }),
      { numRuns: 300 },
    );
  });

  it('walks in order: no later transaction is served before an earlier one is used up, nor a later entry before an earlier one is full', () => {
    fc.assert(
      fc.property(items('t'), items('e'), (transactions, entries) => {
        const result = allocateFifo(transactions, entries);
        const tIndex = new Map(transactions.map((t, i) => [t.id, i]));
        const eIndex = new Map(entries.map((e, i) => [e.id, i]));
        for (const a of result.allocations) {
          const ti = tIndex.get(a.transaction_id)!;
          const ei = eIndex.get(a.entry_id)!;
          for (let k = 0; k < ti; k += 1) expect(result.transaction_remainders[k]).to.equal(0);
          for (let k = 0; k < ei; k += 1) expect(result.entry_remainders[k]).to.equal(0);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('link repair properties', () => {
  it('draws enough unblocked books for the properties below to mean something', () => {
    const samples = fc.sample(booksArb, { numRuns: 400, seed: 42 });
    const unblocked = samples.filter((books) => planLinkRepair(books).outcome !== 'blocked').length;
    const staged = samples.filter((books) => planLinkRepair(books).outcome === 'staged').length;
    expect(unblocked).to.be.greaterThan(150);
    expect(staged).to.be.greaterThan(100);
  });

  it('after applying the actions: Σ links per walked transaction ≤ |amount|, Σ links per in-scope entry ≤ |open amount|, and the summary adds up', () => {
    fc.assert(
      fc.property(booksArb, (books) => {
        const result = planLinkRepair(books);
        if (result.outcome === 'blocked') {
          expect(result.plan).to.equal(null);
          expect(result.blockers).to.not.deep.equal([]);
          return;
        }
        const after = applyActions(books.links, result.plan.actions);
        const open = inScopeEntries(books);
        const walked = walkedTransactions(books);
        const walkedIds = new Set(walked.map((t) => t.id));

        let unallocated = 0;
        for (const t of walked) {
          const own = after.filter((l) => l.bank_transaction_id === t.id);
          const linked = own.reduce((s, l) => s + l.amount_minor, 0);
          expect(linked, `links of ${t.id}`).to.be.at.most(Math.abs(t.amount_minor));
          for (const l of own) {
            // Only in-scope entries of the transaction's direction.
            expect(Math.sign(open.get(l.ledger_entry_id) ?? 0), `${l.id} direction`).to.equal(
              Math.sign(t.amount_minor),
            );
          }
          unallocated += Math.abs(t.amount_minor) - linked;
        }
        let uncovered = 0;
        for (const [entryId, amount] of open) {
          const linked = after.filter((l) => l.ledger_entry_id === entryId).reduce((s, l) => s + l.amount_minor, 0);
          expect(linked, `links to ${entryId}`).to.be.at.most(Math.abs(amount));
          uncovered += Math.abs(amount) - linked;
        }
        expect(result.plan.summary.unallocated_transaction_minor).to.equal(unallocated);
        expect(result.plan.summary.uncovered_entry_minor).to.equal(uncovered);
        // Links of transactions that are not walked are untouched.
        const untouched = (links: readonly BankLink[]) => links.filter((l) => !walkedIds.has(l.bank_transaction_id));
        expect(untouched(after)).to.deep.equal(untouched(books.links));
      }),
      { numRuns: 500 },
    );
  });

  it('applying the actions and planning again gives noop', () => {
    fc.assert(
      fc.property(booksArb, (books) => {
        const first = planLinkRepair(books);
        if (first.outcome === 'blocked') return;
        const again = planLinkRepair({ ...books, links: applyActions(books.links, first.plan.actions) });
        expect(again.outcome, JSON.stringify(again.plan?.actions)).to.equal('noop');
        expect(again.plan!.summary.unallocated_transaction_minor).to.equal(
          first.plan.summary.unallocated_transaction_minor,
        );
        expect(again.plan!.summary.uncovered_entry_minor).to.equal(first.plan.summary.uncovered_entry_minor);
      }),
      { numRuns: 500 },
    );
  });

  it('shuffling the input arrays never changes the outcome, the plan, its hash, the locks or the preconditions', () => {
    fc.assert(
      fc.property(booksArb, fc.integer(), (books, seed) => {
        const reordered: LinkRepairInput = {
          ...books,
          transactions: shuffled(books.transactions, seed),
          entries: shuffled(books.entries, seed + 1),
          links: shuffled(books.links, seed + 2),
        };
        expect(planLinkRepair(reordered)).to.deep.equal(planLinkRepair(books));
      }),
      { numRuns: 300 },
    );
  });

  it('passing a record twice (as a caller merging two reads may) changes nothing', () => {
    fc.assert(
      fc.property(booksArb, (books) => {
        const doubled: LinkRepairInput = {
          ...books,
          transactions: [...books.transactions, ...books.transactions],
          entries: [...books.entries, ...books.entries],
          links: [...books.links, ...books.links],
        };
        expect(planLinkRepair(doubled)).to.deep.equal(planLinkRepair(books));
      }),
      { numRuns: 200 },
    );
  });
});
