// Reverting an applied operation (docs/design/staged-lifecycle.md "Reverts") on
// the real stack: for each revertible kind, apply → stage the revert → approve →
// apply, and every book read equals the one taken before the first apply but
// for versions; random sequences of applies and reverts of every revertible
// kind, unwound latest first to the books as generated; then each refusal, in
// the order the docs give them.
import { expect } from 'chai';
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import { Books } from '../helpers/books.js';
import { call, poll, type Answer } from '../helpers/http.js';
import { duplicatePair } from '../helpers/inbox.js';
import { mulberry32 } from '../helpers/seeded-random.js';
import { apply, approve, doc, show, STAGED } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

interface StageData {
  outcome: string;
  staged_operation_id: string;
  status: string;
  plan: {
    reverts?: string;
    reverts_kind?: string;
    changes?: Array<Record<string, unknown>>;
    new_transactions?: Array<{ id: string }>;
  };
  amount_minor: number;
  currency: string;
}

const OVERVIEW = '/api/v1/cli/bookkeeping/inbox/duplicates';
const revertPath = (id: string): string => `${STAGED}/${id}/revert/stage`;
const stageRevert = (token: string, id: string, body: unknown = {}, query = ''): Promise<Answer<StageData>> =>
  call<StageData>('POST', `${revertPath(id)}${query}`, { token, body });

const STAGER: TokenScope[] = ['bank:stage', 'inbox:stage', 'staged:read', 'books:read', 'inbox:read'];
const REVIEWER: TokenScope[] = ['staged:read', 'staged:approve', 'staged:apply', 'books:read', 'inbox:read'];

async function loaded(books: Books) {
  const s = await stack();
  await s.load(books.file);
  return {
    alice: await s.token(books.orgId, STAGER, 'alice'),
    bob: await s.token(books.orgId, REVIEWER, 'bob'),
    /** Reads and reviews, stages nothing. */
    carol: await s.token(books.orgId, ['staged:read', 'books:read'], 'carol'),
  };
}

/** Every item of a paged book read. */
async function readAll(token: string, path: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = `${path}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res: Answer<{ items: unknown[]; next_cursor: string | null }> = await call('GET', url, { token });
    expect(res.status, `${url}: ${JSON.stringify(res.body)}`).to.equal(200);
    items.push(...res.body.data.items);
    cursor = res.body.data.next_cursor;
  } while (cursor);
  return items;
}

/** The reads' values without `version` (docs/reference/book-reads.md: the one field a revert may leave changed). */
function withoutVersions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutVersions);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([k]) => k !== 'version')
        .map(([k, v]) => [k, withoutVersions(v)]),
    );
  return value;
}

/** Every book read of the org: accounts, transactions and entries with their links, counterparties, documents, the duplicate overview. */
async function bookReads(token: string, accounts: readonly string[]): Promise<unknown> {
  const accountsRes = await call<{ items: unknown[] }>('GET', '/api/v1/cli/bank-accounts', { token });
  expect(accountsRes.status).to.equal(200);
  const counterparties: unknown[] = [];
  for (const account of accounts) {
    const res = await call<{ items: unknown[] }>('GET', `/api/v1/cli/counterparties?bank_account_id=${account}`, {
      token,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    counterparties.push(res.body.data.items);
  }
  const overview = await call<{ groups: unknown[] }>('GET', `${OVERVIEW}?limit=200`, { token });
  expect(overview.status, JSON.stringify(overview.body)).to.equal(200);
  return withoutVersions({
    accounts: accountsRes.body.data.items,
    transactions: await readAll(token, '/api/v1/cli/bank-transactions'),
    entries: await readAll(token, '/api/v1/cli/ledger/entries'),
    counterparties,
    documents: await readAll(token, '/api/v1/cli/bookkeeping/inbox/documents'),
    duplicates: overview.body.data.groups,
  });
}

async function approveApply(bob: string, id: string): Promise<Answer<unknown>> {
  const approved = await approve(bob, id);
  expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
  const applied = await apply(bob, id);
  expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  return applied;
}

/** Stage with `stager`, approve and apply with `bob`: the operation's id. */
async function applied(bob: string, staging: Promise<Answer<StageData>>): Promise<string> {
  const staged = await staging;
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  await approveApply(bob, staged.body.data.staged_operation_id);
  return staged.body.data.staged_operation_id;
}

/** How a kind's revert differs from undoing its journal write by write (a journal entry is reversed, not deleted). */
interface RevertShape {
  /** The revert's own stager (a journal entry's needs `ledger:stage`). */
  stager?: string;
  body?: Record<string, unknown>;
  /** Changes beyond one per write of the reverted apply. */
  extra_changes?: number;
  /** The reads after the revert as they are to compare with those before (the reversal's two entries left out). */
  reads?: (after: unknown) => unknown;
}

/** Revert `id` through the four eyes and check the books are back, its views and amount. */
async function revertAndCompare(
  t: { alice: string; bob: string },
  id: string,
  before: unknown,
  accounts: readonly string[],
  shape: RevertShape = {},
): Promise<string> {
  const original = await show(t.bob, id);
  const staged = await stageRevert(shape.stager ?? t.alice, id, { note: 'wrong statement', ...shape.body });
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  expect(staged.body.operation).to.equal('revert.stage');
  const revertId = staged.body.data.staged_operation_id;
  expect(staged.body.data.plan.reverts).to.equal(id);
  expect(staged.body.data.plan.reverts_kind).to.equal(original.body.data.kind);
  expect(staged.body.data.plan.changes!.length).to.equal(
    original.body.data.result.changes.length + (shape.extra_changes ?? 0),
  );
  expect(staged.body.data.amount_minor).to.equal(original.body.data.amount_minor);
  expect(staged.body.data.currency).to.equal(original.body.data.currency);
  const shown = await show(t.bob, revertId);
  expect(shown.body.data).to.include({ kind: 'revert', reverts: id, status: 'staged' });
  await approveApply(t.bob, revertId);
  const after = await bookReads(t.bob, accounts);
  expect(shape.reads ? shape.reads(after) : after).to.deep.equal(before);
  const reverted = await show(t.bob, id);
  expect(reverted.body.data).to.include({ reverted_by: revertId, status: 'applied' });
  expect((await show(t.bob, revertId)).body.data).to.include({ reverts: id, status: 'applied' });
  return revertId;
}

// --- the kinds' own books ----------------------------------------------------

/** An account with two fully linked transactions, reconcilable through 2026-02-28 at 107,000. */
function reconcileBooks(books = new Books()) {
  const account = books.account({ opening_balance_minor: 100_000 });
  const inflow = books.linkedTxn(account, 12_000, { booking_date: '2026-02-10' });
  const outflow = books.linkedTxn(account, -5_000, { booking_date: '2026-02-05' });
  const march = books.linkedTxn(account, 1_000, { booking_date: '2026-03-05' });
  return { books, account, inflow, outflow, march };
}
const reconcile = (token: string, account: string, end: string, closing: number, ids: string[]) =>
  call<StageData>('POST', '/api/v1/cli/bank-matches/reconcile/stage', {
    token,
    body: {
      bank_account_id: account,
      statement: { end_date: end, closing_balance_minor: closing, currency: 'EUR' },
      transaction_ids: ids,
    },
  });

/** Out-of-order links of one counterparty: the repair moves (part of) links, merges into existing ones and creates new ones. */
function repairBooks() {
  const books = new Books();
  const account = books.account();
  const e1 = books.invoice(6_000, { entry_date: '2026-01-05' });
  const e2 = books.invoice(4_000, { entry_date: '2026-01-20' });
  const e3 = books.invoice(3_000, { entry_date: '2026-02-01' });
  const t1 = books.txn(account, 6_000, { booking_date: '2026-02-03' });
  const t2 = books.txn(account, 4_000, { booking_date: '2026-02-10' });
  books.txn(account, 1_000, { booking_date: '2026-02-12' });
  books.link(t1, e2, 4_000);
  books.link(t1, e1, 2_000);
  books.link(t2, e1, 4_000);
  books.invoice(500, { entry_date: '2026-01-10' });
  return { books, account, e1, e2, e3, t1, t2 };
}
const repair = (token: string, b: ReturnType<typeof repairBooks>) =>
  call<StageData>('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage', {
    token,
    body: { bank_account_id: b.account, counterparty_id: b.books.cp('a'), as_of: '2026-02-28' },
  });

const CSV_QUERY =
  '?format=csv&date_column=date&amount_column=amount&counterparty_column=name&remittance_column=text&reference_column=ref';
async function importCsv(token: string, account: string, csv: string): Promise<Answer<StageData>> {
  const s = await stack();
  const res = await fetch(`${s.baseUrl}/api/v1/cli/bank-accounts/${account}/statements/import/stage${CSV_QUERY}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: csv,
  });
  return { status: res.status, headers: res.headers, body: await res.json() } as Answer<StageData>;
}
const CSV = 'date,amount,name,text,ref\n2026-11-03,100.00,Alpha,inv 1,R1\n2026-11-04,-20.00,Beta,fee,R2\n';

/** An account with an unlinked fee of −3.50 and an open receipt for it; two open invoices and an incoming payment of 100.00. */
function entryBooks() {
  const books = new Books();
  const account = books.account();
  const fee = books.txn(account, -BANK_FEE_MINOR, { booking_date: '2026-03-02', counterparty_id: books.cp('bank') });
  const receipt = books.doc({
    extracted: { vendor_name: 'The Bank', invoice_number: 'FEE-2026-03', total_minor: 350, currency: 'EUR' },
  });
  const inv1 = books.invoice(6_000, { entry_date: '2026-03-01' });
  const inv2 = books.invoice(4_000, { entry_date: '2026-03-03' });
  const paid = books.txn(account, 10_000, { booking_date: '2026-03-10' });
  return { books, account, fee, receipt, inv1, inv2, paid };
}
type EntryBooks = ReturnType<typeof entryBooks>;
const FEE_DATE = '2026-03-02';
const bookFee = (token: string, b: EntryBooks, extra: Record<string, unknown> = {}) =>
  call<StageData>('POST', '/api/v1/cli/ledger/entries/stage', {
    token,
    body: bankFeeEntry(b.books.cp('bank'), {
      entry_date: FEE_DATE,
      bank_transaction_id: b.fee,
      document_id: b.receipt,
      ...extra,
    }),
  });
const match = (token: string, b: EntryBooks) =>
  call<StageData>('POST', '/api/v1/cli/bank-matches/match/stage', {
    token,
    body: {
      bank_account_id: b.account,
      matches: [
        { bank_transaction_id: b.paid, ledger_entry_id: b.inv1, amount_minor: 6_000 },
        { bank_transaction_id: b.paid, ledger_entry_id: b.inv2, amount_minor: 4_000 },
      ],
    },
  });

/**
 * The reads without the reversal a journal entry's revert posts: the reversed entry and its reversing entry
 * left out of the entries. The counterparty read counts neither as open (a reversing entry settles the entry
 * it reverses), so the counterparties read as before.
 */
const withoutReversal =
  (reversed: string) =>
  (reads: unknown): unknown => {
    const r = reads as { entries: Array<{ id: string; reversal_of?: string | null }> };
    return { ...r, entries: r.entries.filter((e) => e.id !== reversed && e.reversal_of !== reversed) };
  };

const resolve = (token: string, group: string, body: unknown) =>
  call<StageData>('POST', `${OVERVIEW}/${group}/resolve/stage`, { token, body });

// --- random sequences of every revertible kind --------------------------------

/** Seeds of the random sequences (each one org, about a dozen applies and their reverts). */
const SEEDS = 20;
/** Steps drawn per seed, before everything still standing is unwound. */
const STEPS = 14;
const SEQUENCE_KINDS = [
  'bank_reconcile',
  'ledger_link_repair',
  'bank_match',
  'statement_import',
  'inbox_duplicates_resolve',
  'journal_entry',
  'approval_policy',
] as const;
type SequenceKind = (typeof SEQUENCE_KINDS)[number];
/** The draw of a step's kind: reconciliations, matches and policy changes twice as often, so that later applies hold earlier reverts. */
const SEQUENCE_DRAW: readonly SequenceKind[] = [...SEQUENCE_KINDS, 'bank_reconcile', 'bank_match', 'approval_policy'];
/** The bank fees' amount (a journal entry booking one books exactly that); an entry booking none is of 5.00, left open for matches. */
const BANK_FEE_MINOR = 350;
const OPEN_FEE_MINOR = 500;
const SEQUENCE_REVERSAL_DATE = '2026-12-31';
const POLICY_PATH = '/api/v1/cli/approval-policy';

interface SequenceOp {
  id: string;
  kind: SequenceKind;
  reverted: boolean;
  /** An import's transactions. */
  transactions?: string[];
  /** A journal entry's entry, the transaction it booked and the document it attached. */
  entry?: string;
  fee?: string | null;
  receipt?: string | null;
  /** A match's pairs. */
  pairs?: Array<{ bank_transaction_id: string; ledger_entry_id: string }>;
}

/** The policy in force as the reads compare it: its content, a rule's absent `min_amount_minor` 0. */
async function policyInForce(token: string): Promise<unknown> {
  const res = await call<{
    rules: Array<Record<string, unknown>>;
    agents_may_approve: boolean;
    unattended: unknown[];
  }>('GET', POLICY_PATH, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const p = res.body.data;
  return {
    rules: p.rules.map((r) => ({ ...r, min_amount_minor: r.min_amount_minor ?? 0 })),
    agents_may_approve: p.agents_may_approve,
    unattended: p.unattended,
  };
}

/**
 * One seed: books with something for every revertible kind (reconcilable linked transactions and imports on one
 * account, bank fees and receipts for journal entries, open invoices and imported payments for matches, out-of-order
 * links of another account for a repair, two duplicate pairs, the default policy); random applies and reverts of
 * random earlier applies, each revert staged or refused as the rules of docs/design/staged-lifecycle.md "Reverts"
 * say for these books; then everything standing reverted latest first, and every book read as before the first apply
 * (a journal entry's reversal pair aside) and the policy in force as before.
 */
async function randomSequence(seed: number, count: (key: string) => void): Promise<void> {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const books = new Books();
  const account = books.account({ opening_balance_minor: 0 });
  const linked = Array.from({ length: 3 }, (_, i) =>
    books.linkedTxn(account, (i + 1) * 1_000, { booking_date: `2026-02-0${i + 1}` }),
  );
  const fees = [1, 2].map((d) =>
    books.txn(account, -BANK_FEE_MINOR, { booking_date: `2026-03-0${d}`, counterparty_id: books.cp('bank') }),
  );
  const receipts = [1, 2].map((n) =>
    books.doc({
      extracted: { vendor_name: 'The Bank', invoice_number: `FEE-${n}`, total_minor: 350, currency: 'EUR' },
    }),
  );
  const invoices = [6_000, 4_000].map((amount) => books.invoice(amount, { entry_date: '2026-03-01' }));
  // The repair's books: another account, another counterparty, links out of order.
  const repairAccount = books.account();
  const r = { counterparty_id: books.cp('r') };
  const e1 = books.invoice(6_000, { entry_date: '2026-01-05', ...r });
  const e2 = books.invoice(4_000, { entry_date: '2026-01-20', ...r });
  books.invoice(3_000, { entry_date: '2026-02-01', ...r });
  const t1 = books.txn(repairAccount, 6_000, { booking_date: '2026-02-03', ...r });
  const t2 = books.txn(repairAccount, 4_000, { booking_date: '2026-02-10', ...r });
  books.link(t1, e2, 4_000);
  books.link(t1, e1, 2_000);
  books.link(t2, e1, 4_000);
  const pairs = [
    duplicatePair(books),
    duplicatePair(books, {
      vendor_name: 'Other GmbH',
      invoice_number: 'OT-77',
      invoice_date: '2026-02-20',
      total_minor: 4_200,
      currency: 'EUR',
    }),
  ];
  const s = await stack();
  await s.load(books.file);
  const alice = await s.token(
    books.orgId,
    ['bank:stage', 'inbox:stage', 'ledger:stage', 'policy:stage', 'staged:read', 'books:read'],
    'alice',
  );
  const bob = await s.token(books.orgId, REVIEWER, 'bob');
  const accounts = [account, repairAccount];
  const initial = await bookReads(bob, accounts);
  const initialPolicy = await policyInForce(bob);
  const done: SequenceOp[] = [];
  const standing = (kind?: SequenceKind): SequenceOp[] =>
    done.filter((o) => !o.reverted && (kind === undefined || o.kind === kind));
  /** Journal entries reverted: their entries and reversing entries stay in the books. */
  const reversed: string[] = [];
  let closing = 0;
  let day = 0;
  let imports = 0;

  /** Stage, approve and apply; the operation standing, or null when staging refused (nothing to do on these books). */
  const applyOp = async (
    kind: SequenceKind,
    staging: Promise<Answer<StageData>>,
    fields: Partial<SequenceOp> = {},
  ): Promise<SequenceOp | null> => {
    const staged = await staging;
    if (staged.status !== 201) {
      count(`${kind} not staged ${String(staged.body.error?.code)}`);
      return null;
    }
    await approveApply(bob, staged.body.data.staged_operation_id);
    const op: SequenceOp = { id: staged.body.data.staged_operation_id, kind, reverted: false, ...fields };
    done.push(op);
    count(`${kind} applied`);
    return op;
  };

  /** Why the rules refuse `op`'s revert now (null: they do not). */
  const refusal = (op: SequenceOp): string | null => {
    const later = (kind: SequenceKind) => standing(kind).some((o) => done.indexOf(o) > done.indexOf(op));
    const matched = (match: (p: { bank_transaction_id: string; ledger_entry_id: string }) => boolean) =>
      standing('bank_match').some((m) => m.pairs!.some(match));
    switch (op.kind) {
      case 'bank_reconcile':
        return later('bank_reconcile') ? 'not_latest_reconciliation' : null;
      case 'approval_policy':
        // The policy in force is no longer the one it made.
        return later('approval_policy') ? 'changed_since_apply' : null;
      case 'statement_import':
        // One of its transactions linked since.
        return matched((p) => op.transactions!.includes(p.bank_transaction_id)) ? 'changed_since_apply' : null;
      case 'journal_entry':
        // A link to its entry that its apply did not create.
        return matched((p) => p.ledger_entry_id === op.entry) ? 'changed_since_apply' : null;
      // Nothing else in these books writes what they wrote, or their links' transactions and entries.
      case 'bank_match':
      case 'ledger_link_repair':
      case 'inbox_duplicates_resolve':
        return null;
    }
  };

  const revertOne = async (op: SequenceOp, mustSucceed: boolean): Promise<void> => {
    const why = refusal(op);
    const body = op.kind === 'journal_entry' ? { reversal_date: SEQUENCE_REVERSAL_DATE } : {};
    const res = await stageRevert(alice, op.id, body);
    if (why) {
      expect(mustSucceed, `${op.kind} ${op.id} refused at the end`).to.equal(false);
      expect(res.status, `${op.kind}: ${JSON.stringify(res.body)}`).to.equal(409);
      expect(res.body.error.code, `${op.kind}: ${JSON.stringify(res.body)}`).to.equal(why);
      count(`${op.kind} refused`);
      return;
    }
    expect(res.status, `${op.kind}: ${JSON.stringify(res.body)}`).to.equal(201);
    expect(res.body.data.plan.reverts_kind).to.equal(op.kind);
    await approveApply(bob, res.body.data.staged_operation_id);
    expect((await show(bob, op.id)).body.data.reverted_by).to.equal(res.body.data.staged_operation_id);
    op.reverted = true;
    count(`${op.kind} reverted`);
    if (op.kind === 'bank_reconcile') {
      const now = (await doc('bank_accounts', account)) as { reconciled_through: { balance_minor: number } | null };
      closing = now.reconciled_through?.balance_minor ?? 0;
    }
    if (op.kind === 'journal_entry') {
      // Reversed, not deleted: the entry marked reversed, its reversing entry posted with the lines' sides swapped.
      const entry = (await doc('ledger_entries', op.entry!)) as Record<string, unknown>;
      expect(entry.status).to.equal('reversed');
      const reversing = (await doc('ledger_entries', entry.reversed_by as string)) as Record<string, unknown>;
      expect(reversing).to.deep.include({
        entry_date: SEQUENCE_REVERSAL_DATE,
        status: 'posted',
        reversal_of: op.entry,
        lines: (entry.lines as Array<{ account: string; debit_minor: number; credit_minor: number }>).map((l) => ({
          account: l.account,
          debit_minor: l.credit_minor,
          credit_minor: l.debit_minor,
        })),
      });
      reversed.push(op.entry!);
      if (op.receipt) expect((await doc('inbox_documents', op.receipt))!).to.include({ status: 'open' });
    }
  };

  for (let step = 0; step < STEPS; step += 1) {
    const open = standing();
    if (rand() < 0.3 && open.length > 0) {
      // Half the time the earliest standing: the one a later apply most likely holds.
      await revertOne(rand() < 0.5 ? open[0]! : pick(open), false);
      continue;
    }
    const drawn = pick(SEQUENCE_DRAW);
    // A match needs imported transactions: without a standing import, the step imports.
    const kind = drawn === 'bank_match' && standing('statement_import').length === 0 ? 'statement_import' : drawn;
    if (kind === 'bank_reconcile') {
      const unreconciled = [];
      for (const l of linked)
        if ((await doc('bank_transactions', l.txn))!.status === 'unreconciled') unreconciled.push(l);
      if (unreconciled.length === 0) continue;
      const chosen = unreconciled.filter(() => rand() < 0.6);
      const txns = chosen.length > 0 ? chosen : [unreconciled[0]!];
      const sum = txns.reduce(
        (total, l) => total + Number(books.file.bank_transactions.find((x) => x.id === l.txn)!.amount_minor),
        0,
      );
      day += 1;
      const end = `2026-03-${String(day).padStart(2, '0')}`;
      const ids = txns.map((l) => l.txn);
      if (await applyOp(kind, reconcile(alice, account, end, closing + sum, ids))) closing += sum;
    } else if (kind === 'ledger_link_repair') {
      await applyOp(
        kind,
        call<StageData>('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage', {
          token: alice,
          body: { bank_account_id: repairAccount, counterparty_id: r.counterparty_id, as_of: '2026-02-28' },
        }),
      );
    } else if (kind === 'statement_import') {
      imports += 1;
      const date = `2026-11-${String(imports).padStart(2, '0')}`;
      const csv = `date,amount,name,text,ref\n${date},${imports}.25,Alpha,inv,S${seed}-${imports}\n${date},-${imports}.75,The Bank,fee,F${seed}-${imports}\n`;
      const staging = importCsv(alice, account, csv);
      const staged = await staging;
      const transactions = (staged.body.data?.plan.new_transactions ?? []).map((t) => t.id);
      await applyOp(kind, Promise.resolve(staged), { transactions });
    } else if (kind === 'inbox_duplicates_resolve') {
      const pair = pick(pairs);
      const body =
        rand() < 0.6
          ? { resolution: 'archive_duplicates', keep_document_id: rand() < 0.5 ? pair.a : pair.b }
          : { resolution: 'not_duplicates' };
      await applyOp(kind, resolve(alice, pair.group, body));
    } else if (kind === 'journal_entry') {
      const entries = standing('journal_entry');
      const freeFees = fees.filter((f) => !entries.some((o) => o.fee === f));
      const freeReceipts = receipts.filter((d) => !entries.some((o) => o.receipt === d));
      const fee = freeFees.length > 0 && rand() < 0.7 ? pick(freeFees) : null;
      const receipt = freeReceipts.length > 0 && rand() < 0.6 ? pick(freeReceipts) : null;
      const amount = fee ? BANK_FEE_MINOR : OPEN_FEE_MINOR;
      const staging = call<StageData>('POST', '/api/v1/cli/ledger/entries/stage', {
        token: alice,
        body: {
          entry_date: '2026-03-15',
          description: 'Bank fee',
          reference: `FEE-${seed}-${step}`,
          counterparty_id: books.cp('bank'),
          currency: 'EUR',
          lines: [
            { account: '6855', debit_minor: amount, credit_minor: 0 },
            { account: '1600', debit_minor: 0, credit_minor: amount },
          ],
          ...(fee ? { bank_transaction_id: fee } : {}),
          ...(receipt ? { document_id: receipt } : {}),
        },
      });
      const staged = await staging;
      expect(staged.status, `journal entry: ${JSON.stringify(staged.body)}`).to.equal(201);
      await applyOp(kind, Promise.resolve(staged), {
        entry: (staged.body.data.plan as { ledger_entry_id?: string }).ledger_entry_id!,
        fee,
        receipt,
      });
    } else if (kind === 'bank_match') {
      // Imported payments to the open invoices, imported fees to the standing journal entries' open rest.
      const candidates: Array<{ bank_transaction_id: string; ledger_entry_id: string }> = [];
      for (const imp of standing('statement_import'))
        for (const txn of imp.transactions!) {
          const amount = (await doc('bank_transactions', txn))!.amount_minor as number;
          const targets =
            amount > 0
              ? invoices
              : standing('journal_entry')
                  .filter((o) => !o.fee)
                  .map((o) => o.entry!);
          for (const entry of targets) candidates.push({ bank_transaction_id: txn, ledger_entry_id: entry });
        }
      if (candidates.length === 0) continue;
      // Half the time a journal entry's open rest only, when there is one: the match then holds that entry's revert.
      const toEntries = candidates.filter((c) => !invoices.includes(c.ledger_entry_id));
      const from = toEntries.length > 0 && rand() < 0.5 ? toEntries : candidates;
      const chosen = new Map<string, { bank_transaction_id: string; ledger_entry_id: string; amount_minor: number }>();
      for (let k = 0; k < 1 + Math.floor(rand() * 2); k += 1) {
        const p = pick(from);
        chosen.set(`${p.bank_transaction_id}/${p.ledger_entry_id}`, {
          ...p,
          amount_minor: 1 + Math.floor(rand() * 50),
        });
      }
      const matches = [...chosen.values()];
      const matched = await applyOp(
        kind,
        call<StageData>('POST', '/api/v1/cli/bank-matches/match/stage', {
          token: alice,
          body: { bank_account_id: account, matches },
        }),
        {
          pairs: matches.map(({ bank_transaction_id, ledger_entry_id }) => ({ bank_transaction_id, ledger_entry_id })),
        },
      );
      // A journal entry whose entry it linked: its revert now, which the match holds.
      const held = standing('journal_entry').find((o) => matched?.pairs!.some((p) => p.ledger_entry_id === o.entry));
      if (held) await revertOne(held, false);
    } else {
      // One approval by anyone stays enough, so the sequence's own applies are not held up.
      await applyOp(
        kind,
        call<StageData>('POST', '/api/v1/cli/approval-policy/stage', {
          token: alice,
          body: {
            rules: [
              { kinds: ['period_close'], approvals: 1 + Math.floor(rand() * 3), approvers: 'people' },
              { kinds: ['*'], approvals: 1, approvers: 'any' },
            ],
            agents_may_approve: rand() < 0.5,
            unattended: [],
          },
        }),
      );
    }
  }
  for (const op of [...done].reverse()) if (!op.reverted) await revertOne(op, true);
  const after = (await bookReads(bob, accounts)) as {
    entries: Array<{ id: string; reversal_of?: string | null }>;
    counterparties: Array<Array<{ counterparty_id: string; open_receivable_minor: number }>>;
  };
  // The reversal pairs left out (as for one).
  const unreversed = reversed.reduce((reads: unknown, entry) => withoutReversal(entry)(reads), after);
  expect(unreversed).to.deep.equal(initial);
  expect(await policyInForce(bob)).to.deep.equal(initialPolicy);
}

describe('POST /staged-operations/{id}/revert/stage', () => {
  it('a reconciliation: its transactions back to unreconciled, reconciled_through back; the books read as before', async () => {
    const b = reconcileBooks();
    const t = await loaded(b.books);
    const before = await bookReads(t.bob, [b.account]);
    const id = await applied(
      t.bob,
      reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
    );
    expect(await bookReads(t.bob, [b.account])).to.not.deep.equal(before);
    const revertId = await revertAndCompare(t, id, before, [b.account]);
    // Versions never go back: each record the revert wrote is two versions on.
    expect((await doc('bank_transactions', b.inflow.txn))!.version).to.equal(3);
    expect((await doc('bank_accounts', b.account))!.version).to.equal(3);
    // Its events name the reverted operation (they appear shortly after their transition).
    const events = await (await stack()).token(b.books.orgId, ['events:read']);
    let own: Array<{ data: { staged_operation: Record<string, unknown> } }> = [];
    for (let tries = 0; own.length < 4 && tries < 100; tries += 1) {
      const res = await call<{ items: Array<{ data: { staged_operation: Record<string, unknown> } }> }>(
        'GET',
        '/api/v1/cli/events?limit=100',
        { token: events },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      own = res.body.data.items.filter((e) => e.data.staged_operation.staged_operation_id === revertId);
      if (own.length < 4) await new Promise((r) => setTimeout(r, 200));
    }
    // staged, approved, applying, applied
    expect(own).to.have.length(4);
    for (const e of own) expect(e.data.staged_operation.reverts).to.equal(id);
  });

  it('a link repair: moved links moved back (partial moves and merges exactly), created links removed, released links restored', async () => {
    const b = repairBooks();
    const t = await loaded(b.books);
    const before = await bookReads(t.bob, [b.account]);
    const id = await applied(t.bob, repair(t.alice, b));
    const changes = (await show(t.bob, id)).body.data.result.changes;
    expect(changes.map((c) => c.action)).to.include.members(['insert', 'delete']);
    await revertAndCompare(t, id, before, [b.account]);
  });

  it('a link repair applied before journals had parts (its writes on the operation): reverted the same', async () => {
    const b = repairBooks();
    const t = await loaded(b.books);
    const before = await bookReads(t.bob, [b.account]);
    const id = await applied(t.bob, repair(t.alice, b));
    // The operation as the version before apply_journal_parts stored it: the writes in its apply state, no parts.
    const db = (await stack()).db;
    const stored = await db.collection<{ _id: string; apply_json: string }>('staged_operations').findOne({ _id: id });
    const state = JSON.parse(stored!.apply_json) as { journal_id: string; journal_parts: number; writes: unknown[] };
    expect(state.writes).to.deep.equal([]);
    const parts = await db
      .collection<{ _id: string; seq: number; writes_json: string }>('apply_journal_parts')
      .find({ journal_id: state.journal_id })
      .toArray();
    expect(parts.length).to.equal(state.journal_parts);
    const { journal_id: _id, journal_parts: _parts, ...embedded } = state;
    embedded.writes = parts.sort((x, y) => x.seq - y.seq).flatMap((p) => JSON.parse(p.writes_json) as unknown[]);
    await db
      .collection<{ _id: string }>('staged_operations')
      .updateOne({ _id: id }, { $set: { apply_json: JSON.stringify(embedded) } });
    await db.collection<{ _id: string }>('apply_journal_parts').deleteMany({ _id: { $in: parts.map((p) => p._id) } });
    await revertAndCompare(t, id, before, [b.account]);
  });

  it('a statement import: the transactions it created removed; importing the file again brings them back', async () => {
    const books = new Books();
    const account = books.account();
    const t = await loaded(books);
    const before = await bookReads(t.bob, [account]);
    const id = await applied(t.bob, importCsv(t.alice, account, CSV));
    await revertAndCompare(t, id, before, [account]);
    // The same file again: the same transactions (their ids come from the file) come back, and can be reverted again.
    const again = await applied(t.bob, importCsv(t.alice, account, CSV));
    const ids = (await show(t.bob, again)).body.data.result.changes.map((c) => c.id);
    expect(ids).to.deep.equal((await show(t.bob, id)).body.data.result.changes.map((c) => c.id));
    // Versions never go back: each returns above the version it had when the revert removed it (1).
    for (const txn of ids) expect((await doc('bank_transactions', txn))!.version).to.equal(2);
    await revertAndCompare(t, again, before, [account]);
    const third = await importCsv(t.alice, account, CSV);
    expect(third.status, JSON.stringify(third.body)).to.equal(201);
    expect(third.body.data.plan.new_transactions!.map((n) => (n as { version?: number }).version)).to.deep.equal([
      3, 3,
    ]);
    await approveApply(t.bob, third.body.data.staged_operation_id);
    for (const txn of ids) expect((await doc('bank_transactions', txn))!.version).to.equal(3);
    await revertAndCompare(t, third.body.data.staged_operation_id, before, [account]);
  });

  it('a duplicate resolution: archived documents back to their status; a not-duplicates decision withdrawn (the group shows again)', async () => {
    const books = new Books();
    const pair = duplicatePair(books);
    const other = duplicatePair(books, {
      vendor_name: 'Other GmbH',
      invoice_number: 'OT-77',
      invoice_date: '2026-02-20',
      total_minor: 4_200,
      currency: 'EUR',
    });
    const t = await loaded(books);
    const before = await bookReads(t.bob, []);
    const archived = await applied(
      t.bob,
      resolve(t.alice, pair.group, { resolution: 'archive_duplicates', keep_document_id: pair.a }),
    );
    await revertAndCompare(t, archived, before, []);
    const dismissed = await applied(t.bob, resolve(t.alice, other.group, { resolution: 'not_duplicates' }));
    expect(await bookReads(t.bob, [])).to.not.deep.equal(before);
    await revertAndCompare(t, dismissed, before, []);
    // The same decision again: the dismissal returns under its id above the version it had, and can be reverted again.
    const dismissalId = (await show(t.bob, dismissed)).body.data.result.changes[0]!.id;
    const again = await applied(t.bob, resolve(t.alice, other.group, { resolution: 'not_duplicates' }));
    expect((await doc('duplicate_dismissals', dismissalId))!.version).to.equal(2);
    await revertAndCompare(t, again, before, []);
  });

  it('a journal entry: reversed by a reversing entry, its bank link removed, its document back to open; the other books read as before', async () => {
    const b = entryBooks();
    const t = await loaded(b.books);
    const ledger = await (await stack()).token(b.books.orgId, ['ledger:stage', 'staged:read'], 'alice');
    const before = await bookReads(t.bob, [b.account]);
    const id = await applied(t.bob, bookFee(ledger, b));
    const entryId = (await show(t.bob, id)).body.data.result.changes.find((c) => c.collection === 'ledger_entries')!.id;
    expect(await bookReads(t.bob, [b.account])).to.not.deep.equal(before);
    const revertId = await revertAndCompare(t, id, before, [b.account], {
      stager: ledger,
      body: { reversal_date: '2026-03-31' },
      extra_changes: 1,
      reads: withoutReversal(entryId),
    });
    const reversed = (await doc('ledger_entries', entryId)) as Record<string, unknown>;
    expect(reversed).to.include({ status: 'reversed', version: 2 });
    const reversing = (await doc('ledger_entries', reversed.reversed_by as string)) as Record<string, unknown>;
    expect(reversing).to.deep.include({
      entry_date: '2026-03-31',
      description: `Reversal of ${entryId}`,
      reference: 'FEE-2026-03',
      status: 'posted',
      reversal_of: entryId,
      version: 1,
      lines: [
        { account: '6855', debit_minor: 0, credit_minor: 350 },
        { account: '1600', debit_minor: 350, credit_minor: 0 },
      ],
    });
    expect((await doc('inbox_documents', b.receipt))!).to.include({ status: 'open', booked_entry_id: null });
    const revert = (await show(t.bob, revertId)).body.data as { plan: { changes: Array<Record<string, unknown>> } };
    expect(revert.plan.changes.map((c) => `${String(c.action)} ${String(c.collection)}`)).to.deep.equal([
      'update inbox_documents',
      'delete bank_links',
      'insert ledger_entries',
      'update ledger_entries',
    ]);
  });

  it('a journal entry without a reversal date: the reversing entry is dated today (UTC)', async () => {
    const b = entryBooks();
    const t = await loaded(b.books);
    const ledger = await (await stack()).token(b.books.orgId, ['ledger:stage', 'staged:read'], 'alice');
    const id = await applied(t.bob, bookFee(ledger, b, { bank_transaction_id: undefined, document_id: undefined }));
    const res = await stageRevert(ledger, id, {}, '?dry_run=true');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const insert = res.body.data.plan.changes!.find((c) => c.action === 'insert')!;
    expect((insert.doc as { entry_date: string }).entry_date).to.equal(new Date().toISOString().slice(0, 10));
  });

  it('a bank match: the links it created removed; the books read as before', async () => {
    const b = entryBooks();
    const t = await loaded(b.books);
    const before = await bookReads(t.bob, [b.account]);
    const id = await applied(t.bob, match(t.alice, b));
    expect(await bookReads(t.bob, [b.account])).to.not.deep.equal(before);
    const revertId = await revertAndCompare(t, id, before, [b.account]);
    const revert = (await show(t.bob, revertId)).body.data as { plan: { changes: Array<Record<string, unknown>> } };
    expect(revert.plan.changes.map((c) => `${String(c.action)} ${String(c.collection)}`)).to.deep.equal([
      'delete bank_links',
      'delete bank_links',
    ]);
    // Matched again after the revert: new links, and that match can be reverted in turn.
    const again = await applied(t.bob, match(t.alice, b));
    await revertAndCompare(t, again, before, [b.account]);
  });

  it('a dry run answers the plan and stores nothing; a second staging while one is staged answers that one', async () => {
    const b = reconcileBooks();
    const t = await loaded(b.books);
    const id = await applied(
      t.bob,
      reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
    );
    const dry = await stageRevert(t.alice, id, {}, '?dry_run=true');
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    expect(dry.body.data).to.include({ outcome: 'staged' });
    const first = await stageRevert(t.alice, id);
    expect(first.status).to.equal(201);
    expect(first.body.data.plan).to.deep.equal(dry.body.data.plan);
    const second = await stageRevert(t.alice, id);
    expect(second.status, JSON.stringify(second.body)).to.equal(200);
    expect(second.body.data.staged_operation_id).to.equal(first.body.data.staged_operation_id);
  });

  it('waits as every staging: Prefer wait=0 answers 202 and its job the revert; the same Idempotency-Key replays it, another body is refused', async () => {
    const b = reconcileBooks();
    const t = await loaded(b.books);
    const id = await applied(
      t.bob,
      reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
    );
    const key = `revert-${id}`;
    const pending = await call<{ job_id: string }>('POST', revertPath(id), {
      token: t.alice,
      body: { note: 'wrong statement' },
      headers: { 'idempotency-key': key, prefer: 'wait=0' },
    });
    expect(pending.status, JSON.stringify(pending.body)).to.equal(202);
    const polled = await poll<StageData>(pending.headers.get('location')!, t.alice, (a) => a.status !== 202);
    expect(polled.status, JSON.stringify(polled.body)).to.equal(201);
    expect(polled.body.data.plan.reverts).to.equal(id);
    const replay = await call<StageData>('POST', revertPath(id), {
      token: t.alice,
      body: { note: 'wrong statement' },
      headers: { 'idempotency-key': key },
    });
    expect(replay.status).to.equal(201);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body.data.staged_operation_id).to.equal(polled.body.data.staged_operation_id);
    const other = await call('POST', revertPath(id), {
      token: t.alice,
      body: { note: 'another reason' },
      headers: { 'idempotency-key': key },
    });
    expect(other.status, JSON.stringify(other.body)).to.equal(422);
    expect(other.body.error.code).to.equal('idempotency_key_reused');
  });

  describe(`random sequences of applies and reverts through HTTP (${SEEDS} seeds, every revertible kind)`, () => {
    /** How often each kind was applied, reverted, and refused its revert (`kind applied|reverted|refused`). */
    const seen = new Map<string, number>();
    const count = (key: string): void => void seen.set(key, (seen.get(key) ?? 0) + 1);
    for (let seed = 1; seed <= SEEDS; seed += 1) {
      it(`seed ${seed}: each revert applied or refused as the rules say; unwound latest first, the books read as generated`, async function () {
        this.timeout(120_000);
        try {
          await randomSequence(seed, count);
        } catch (e) {
          if (e instanceof Error) e.message = `seed ${seed}: ${e.message}`;
          throw e;
        }
      });
    }
    it('the seeds drew every revertible kind, each reverted, and each refusal the books can meet', () => {
      const all = JSON.stringify([...seen].sort());
      for (const kind of SEQUENCE_KINDS) {
        expect(seen.get(`${kind} applied`) ?? 0, all).to.be.at.least(3);
        expect(seen.get(`${kind} reverted`), all).to.equal(seen.get(`${kind} applied`));
      }
      for (const kind of ['bank_reconcile', 'statement_import', 'journal_entry', 'approval_policy'])
        expect(seen.get(`${kind} refused`) ?? 0, `${kind}: ${all}`).to.be.at.least(1);
    });
  });
  describe('refusals, in order', () => {
    it('404 for an unknown id and for another org’s operation; 403 without the reverted kind’s scope', async () => {
      const b = reconcileBooks();
      const t = await loaded(b.books);
      const unknown = await stageRevert(t.alice, 'stg_nothere');
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error.code).to.equal('not_found');
      const id = await applied(
        t.bob,
        reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
      );
      const stranger = await loaded(new Books());
      expect((await stageRevert(stranger.alice, id)).status).to.equal(404);
      const forbidden = await stageRevert(t.bob, id);
      expect(forbidden.status, JSON.stringify(forbidden.body)).to.equal(403);
      expect(forbidden.body.error.details).to.deep.equal({ required_scope: 'bank:stage' });
    });

    it('409 not_applied for an operation only staged', async () => {
      const b = reconcileBooks();
      const t = await loaded(b.books);
      const staged = await reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]);
      const res = await stageRevert(t.alice, staged.body.data.staged_operation_id);
      expect(res.status).to.equal(409);
      expect(res.body.error).to.include({ code: 'not_applied' });
      expect(res.body.error.details).to.include({ status: 'staged' });
    });

    it('422 not_revertible for a ledger reversal and for a revert', async () => {
      const b = reconcileBooks();
      const t = await loaded(b.books);
      const s = await stack();
      const ledger = await s.token(b.books.orgId, ['ledger:stage'], 'alice');
      const reversal = await applied(
        t.bob,
        call<StageData>('POST', `/api/v1/cli/ledger/entries/${b.march.entry}/reverse/stage`, {
          token: ledger,
          body: { reversal_date: '2026-03-31' },
        }),
      );
      const res = await stageRevert(ledger, reversal);
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.error).to.include({ code: 'not_revertible' });
      expect(res.body.error.details).to.include({ kind: 'ledger_reversal' });

      const id = await applied(
        t.bob,
        reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
      );
      const revertId = await applied(t.bob, stageRevert(t.alice, id));
      const again = await stageRevert(t.alice, revertId);
      expect(again.status).to.equal(422);
      expect(again.body.error.details).to.include({ kind: 'revert' });
    });

    it('422 not_revertible for a period close (the scope that stages it checked first)', async () => {
      const b = reconcileBooks();
      const t = await loaded(b.books);
      const policy = await (await stack()).token(b.books.orgId, ['policy:stage', 'staged:read'], 'alice');
      const close = await applied(
        t.bob,
        call<StageData>('POST', '/api/v1/cli/periods/close/stage', { token: policy, body: { through: '2026-01-31' } }),
      );
      const forbidden = await stageRevert(t.alice, close);
      expect(forbidden.status, JSON.stringify(forbidden.body)).to.equal(403);
      expect(forbidden.body.error.details).to.deep.equal({ required_scope: 'policy:stage' });
      const res = await stageRevert(policy, close);
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.error).to.include({ code: 'not_revertible' });
      expect(res.body.error.details).to.deep.equal({ staged_operation_id: close, kind: 'period_close' });
    });

    it('409 already_reverted once a revert is approved, and once it is applied', async () => {
      const b = reconcileBooks();
      const t = await loaded(b.books);
      const id = await applied(
        t.bob,
        reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
      );
      const staged = await stageRevert(t.alice, id);
      const revertId = staged.body.data.staged_operation_id;
      expect((await approve(t.bob, revertId)).status).to.equal(200);
      const approved = await stageRevert(t.alice, id);
      expect(approved.status).to.equal(409);
      expect(approved.body.error).to.include({ code: 'already_reverted' });
      expect(approved.body.error.details).to.deep.equal({ staged_operation_id: id, reverted_by: revertId });
      expect((await apply(t.bob, revertId)).status).to.equal(200);
      const done = await stageRevert(t.alice, id);
      expect(done.status).to.equal(409);
      expect(done.body.error.details).to.include({ reverted_by: revertId });
    });

    it('409 not_latest_reconciliation while a later reconciliation of the account stands; once that is reverted, the earlier one can be', async () => {
      const b = reconcileBooks();
      const t = await loaded(b.books);
      const before = await bookReads(t.bob, [b.account]);
      const feb = await applied(
        t.bob,
        reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
      );
      const mar = await applied(t.bob, reconcile(t.alice, b.account, '2026-03-31', 108_000, [b.march.txn]));
      const res = await stageRevert(t.alice, feb);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error).to.include({ code: 'not_latest_reconciliation' });
      expect(res.body.error.details).to.deep.equal({
        staged_operation_id: feb,
        bank_account_id: b.account,
        later_staged_operation_id: mar,
      });
      await applied(t.bob, stageRevert(t.alice, mar));
      await revertAndCompare(t, feb, before, [b.account]);
    });

    it("409 pending_operation: a reconciliation's revert locks the account as a reconciliation does", async () => {
      const b = reconcileBooks();
      const t = await loaded(b.books);
      const feb = await applied(
        t.bob,
        reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
      );
      const revert = await stageRevert(t.alice, feb);
      expect(revert.status, JSON.stringify(revert.body)).to.equal(201);
      const revertId = revert.body.data.staged_operation_id;
      const march = await reconcile(t.alice, b.account, '2026-03-31', 108_000, [b.march.txn]);
      expect(march.status, JSON.stringify(march.body)).to.equal(409);
      expect(march.body.error.code).to.equal('pending_operation');
      expect(march.body.error.details).to.deep.include({ staged_operation_ids: [revertId] });
      // Once the revert is applied, the account is free again.
      await approveApply(t.bob, revertId);
      const again = await reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]);
      expect(again.status, JSON.stringify(again.body)).to.equal(201);
    });

    it('409 changed_since_apply naming the imported transaction that was linked since', async () => {
      const books = new Books();
      const account = books.account();
      const entry = books.invoice(10_000);
      const t = await loaded(books);
      const id = await applied(t.bob, importCsv(t.alice, account, CSV));
      const txn = (await show(t.bob, id)).body.data.result.changes[0]!.id;
      const { db } = await stack();
      await db.collection('bank_links').insertOne({
        _id: `lnk_${books.uid}_later`,
        org_id: books.orgId,
        bank_transaction_id: txn,
        ledger_entry_id: entry,
        amount_minor: 10_000,
        created_at: '2026-11-05T00:00:00.000Z',
        created_by: 'alice',
        version: 1,
      } as never);
      const res = await stageRevert(t.alice, id);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error).to.include({ code: 'changed_since_apply' });
      expect(res.body.error.details).to.include({ staged_operation_id: id });
      expect((res.body.error.details as { ids: string[] }).ids).to.deep.equal([txn]);
    });

    it('409 changed_since_apply naming the imported transaction that was reconciled since', async () => {
      const books = new Books();
      const account = books.account();
      const t = await loaded(books);
      const id = await applied(t.bob, importCsv(t.alice, account, CSV));
      const txn = (await show(t.bob, id)).body.data.result.changes[0]!.id;
      const { db } = await stack();
      await db.collection('bank_transactions').updateOne({ _id: txn } as never, {
        $set: { status: 'reconciled', reconciliation_id: 'stg_later' },
        $inc: { version: 1 },
      });
      const res = await stageRevert(t.alice, id);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error).to.include({ code: 'changed_since_apply' });
      expect(res.body.error.details).to.deep.include({ staged_operation_id: id, ids: [txn] });
    });

    it('a link repair: 409 changed_since_apply naming the link it wrote that changed since', async () => {
      const b = repairBooks();
      const t = await loaded(b.books);
      const id = await applied(t.bob, repair(t.alice, b));
      const written = (await show(t.bob, id)).body.data.result.changes.find(
        (c) => c.collection === 'bank_links' && c.action !== 'delete',
      )!.id;
      const { db } = await stack();
      await db.collection('bank_links').updateOne({ _id: written } as never, { $inc: { amount_minor: 1, version: 1 } });
      const res = await stageRevert(t.alice, id);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error).to.include({ code: 'changed_since_apply' });
      expect(res.body.error.details).to.deep.include({ staged_operation_id: id, ids: [written] });
    });

    it('a duplicate resolution: 403 without inbox:stage; 409 changed_since_apply naming the archived document that changed since', async () => {
      const books = new Books();
      const pair = duplicatePair(books);
      const t = await loaded(books);
      const id = await applied(
        t.bob,
        resolve(t.alice, pair.group, { resolution: 'archive_duplicates', keep_document_id: pair.a }),
      );
      const bank = await (await stack()).token(books.orgId, ['bank:stage', 'staged:read'], 'alice');
      const forbidden = await stageRevert(bank, id);
      expect(forbidden.status, JSON.stringify(forbidden.body)).to.equal(403);
      expect(forbidden.body.error.details).to.deep.equal({ required_scope: 'inbox:stage' });
      const { db } = await stack();
      await db
        .collection('inbox_documents')
        .updateOne({ _id: pair.b } as never, { $set: { archived_reason: 'edited by hand' }, $inc: { version: 1 } });
      const res = await stageRevert(t.alice, id);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error).to.include({ code: 'changed_since_apply' });
      expect(res.body.error.details).to.deep.include({ staged_operation_id: id, ids: [pair.b] });
    });

    it('422 period_locked when the lock date covers the imported transactions or the reconciliation', async () => {
      const books = new Books();
      const account = books.account();
      const t = await loaded(books);
      const id = await applied(t.bob, importCsv(t.alice, account, CSV));
      const { db } = await stack();
      await db
        .collection('orgs')
        .updateOne({ _id: books.orgId } as never, { $set: { lock_date: '2026-11-03' }, $inc: { version: 1 } });
      const res = await stageRevert(t.alice, id);
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.error).to.include({ code: 'period_locked' });
      expect(res.body.error.details).to.include({ lock_date: '2026-11-03' });
      expect((res.body.error.details as { transaction_ids: string[] }).transaction_ids).to.have.length(1);

      const b = reconcileBooks();
      const r = await loaded(b.books);
      const rec = await applied(
        r.bob,
        reconcile(r.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
      );
      await db
        .collection('orgs')
        .updateOne({ _id: b.books.orgId } as never, { $set: { lock_date: '2026-02-28' }, $inc: { version: 1 } });
      const locked = await stageRevert(r.alice, rec);
      expect(locked.status).to.equal(422);
      expect(locked.body.error.details).to.include({ end_date: '2026-02-28', bank_account_id: b.account });
    });

    it('409 stale_plan period_locked at apply when the lock date reaches the imported transactions after the revert was staged', async () => {
      const books = new Books();
      const account = books.account();
      const t = await loaded(books);
      const id = await applied(t.bob, importCsv(t.alice, account, CSV));
      const staged = await stageRevert(t.alice, id);
      expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
      const revertId = staged.body.data.staged_operation_id;
      expect((await approve(t.bob, revertId)).status).to.equal(200);
      // Written directly: no version of what the plan read changes, so the lock date alone refuses it.
      const { db } = await stack();
      await db.collection('orgs').updateOne({ _id: books.orgId } as never, { $set: { lock_date: '2026-11-03' } });
      const res = await apply(t.bob, revertId);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error.code).to.equal('stale_plan');
      expect(res.body.error.details).to.deep.include({
        staged_operation_id: revertId,
        changed: [],
        reason: 'period_locked',
        lock_date: '2026-11-03',
      });
      expect((res.body.error.details as { transaction_ids: string[] }).transaction_ids).to.have.length(1);
      expect((await show(t.bob, revertId)).body.data.status).to.equal('stale');
      expect(await db.collection('bank_transactions').countDocuments({ org_id: books.orgId })).to.equal(2);
    });

    it('a journal entry: 403 without ledger:stage; 409 changed_since_apply for a link to the entry made since, its transaction changed since, or the entry reversed since', async () => {
      const b = entryBooks();
      const t = await loaded(b.books);
      const ledger = await (await stack()).token(b.books.orgId, ['ledger:stage', 'staged:read'], 'alice');
      const id = await applied(t.bob, bookFee(ledger, b));
      const changes = (await show(t.bob, id)).body.data.result.changes;
      const entryId = changes.find((c) => c.collection === 'ledger_entries')!.id;
      const linkId = changes.find((c) => c.collection === 'bank_links')!.id;
      const forbidden = await stageRevert(t.alice, id);
      expect(forbidden.status, JSON.stringify(forbidden.body)).to.equal(403);
      expect(forbidden.body.error.details).to.deep.equal({ required_scope: 'ledger:stage' });

      const { db } = await stack();
      const later = `lnk_${b.books.uid}_later`;
      await db.collection('bank_links').insertOne({
        _id: later,
        org_id: b.books.orgId,
        bank_transaction_id: b.paid,
        ledger_entry_id: entryId,
        amount_minor: 100,
        created_at: '2026-11-05T00:00:00.000Z',
        created_by: 'alice',
        version: 1,
      } as never);
      const linked = await stageRevert(ledger, id);
      expect(linked.status, JSON.stringify(linked.body)).to.equal(409);
      expect(linked.body.error).to.include({ code: 'changed_since_apply' });
      expect(linked.body.error.details).to.deep.include({ staged_operation_id: id, ids: [later] });
      await db.collection('bank_links').deleteOne({ _id: later } as never);

      await db
        .collection('bank_transactions')
        .updateOne({ _id: b.fee } as never, { $set: { remittance_info: 'edited' }, $inc: { version: 1 } });
      const edited = await stageRevert(ledger, id);
      expect(edited.status, JSON.stringify(edited.body)).to.equal(409);
      expect(edited.body.error.details).to.deep.include({ ids: [b.fee] });
      await db
        .collection('bank_transactions')
        .updateOne({ _id: b.fee } as never, { $set: { remittance_info: '' }, $inc: { version: -1 } });
      expect((await stageRevert(ledger, id, {}, '?dry_run=true')).status).to.equal(200);

      await applied(
        t.bob,
        call<StageData>('POST', `/api/v1/cli/ledger/entries/${entryId}/reverse/stage`, {
          token: ledger,
          body: { reversal_date: '2026-03-31' },
        }),
      );
      const reversed = await stageRevert(ledger, id);
      expect(reversed.status, JSON.stringify(reversed.body)).to.equal(409);
      expect(reversed.body.error).to.include({ code: 'changed_since_apply' });
      expect((reversed.body.error.details as { ids: string[] }).ids).to.have.members([entryId, linkId]);
    });

    it('a journal entry: 422 reversal_before_entry for a reversal date before the entry, 400 for one that is no date, 422 period_locked when the lock date covers the reversing entry', async () => {
      const b = entryBooks();
      const t = await loaded(b.books);
      const ledger = await (await stack()).token(b.books.orgId, ['ledger:stage', 'staged:read'], 'alice');
      const id = await applied(t.bob, bookFee(ledger, b));
      const entryId = (await show(t.bob, id)).body.data.result.changes.find(
        (c) => c.collection === 'ledger_entries',
      )!.id;
      const early = await stageRevert(ledger, id, { reversal_date: '2026-03-01' });
      expect(early.status, JSON.stringify(early.body)).to.equal(422);
      expect(early.body.error).to.include({ code: 'reversal_before_entry' });
      expect(early.body.error.details).to.include({ reversal_date: '2026-03-01', entry_date: FEE_DATE });
      const bad = await stageRevert(ledger, id, { reversal_date: '31.03.2026' });
      expect(bad.status, JSON.stringify(bad.body)).to.equal(400);
      expect(bad.body.error.code).to.equal('validation_failed');

      const { db } = await stack();
      await db
        .collection('orgs')
        .updateOne({ _id: b.books.orgId } as never, { $set: { lock_date: '2026-03-31' }, $inc: { version: 1 } });
      const locked = await stageRevert(ledger, id, { reversal_date: '2026-03-31' });
      expect(locked.status, JSON.stringify(locked.body)).to.equal(422);
      expect(locked.body.error).to.include({ code: 'period_locked' });
      expect(locked.body.error.details).to.deep.equal({
        staged_operation_id: id,
        lock_date: '2026-03-31',
        ledger_entry_id: entryId,
        reversal_date: '2026-03-31',
      });
      // The entry itself lies in the closed period: a reversing entry after the lock date may still be booked.
      const open = await stageRevert(ledger, id, { reversal_date: '2026-04-01' });
      expect(open.status, JSON.stringify(open.body)).to.equal(201);
      // A lock date that moves over it before the apply makes the apply stale: written directly, so no version of
      // what the plan read changes and the lock date alone refuses it.
      const openId = open.body.data.staged_operation_id;
      expect((await approve(t.bob, openId)).status).to.equal(200);
      await db.collection('orgs').updateOne({ _id: b.books.orgId } as never, { $set: { lock_date: '2026-04-30' } });
      const stale = await apply(t.bob, openId);
      expect(stale.status, JSON.stringify(stale.body)).to.equal(409);
      expect(stale.body.error.code).to.equal('stale_plan');
      expect(stale.body.error.details).to.deep.include({
        staged_operation_id: openId,
        changed: [],
        reason: 'period_locked',
        lock_date: '2026-04-30',
        ledger_entry_id: entryId,
        reversal_date: '2026-04-01',
      });
      expect((await show(t.bob, openId)).body.data.status).to.equal('stale');
      expect((await doc('ledger_entries', entryId))!.status).to.equal('posted');
    });

    it('a bank match: 409 changed_since_apply when one of its links, or one of their entries, changed since', async () => {
      const b = entryBooks();
      const t = await loaded(b.books);
      const id = await applied(t.bob, match(t.alice, b));
      const links = (await show(t.bob, id)).body.data.result.changes.map((c) => c.id);
      const { db } = await stack();
      const amount = (await doc('bank_links', links[0]!))!.amount_minor;
      await db
        .collection('bank_links')
        .updateOne({ _id: links[0] } as never, { $set: { amount_minor: 1 }, $inc: { version: 1 } });
      const link = await stageRevert(t.alice, id);
      expect(link.status, JSON.stringify(link.body)).to.equal(409);
      expect(link.body.error).to.include({ code: 'changed_since_apply' });
      expect(link.body.error.details).to.deep.include({ ids: [links[0]] });
      await db
        .collection('bank_links')
        .updateOne({ _id: links[0] } as never, { $set: { amount_minor: amount }, $inc: { version: -1 } });
      await db
        .collection('ledger_entries')
        .updateOne({ _id: b.inv2 } as never, { $set: { description: 'edited' }, $inc: { version: 1 } });
      const entry = await stageRevert(t.alice, id);
      expect(entry.status, JSON.stringify(entry.body)).to.equal(409);
      expect(entry.body.error.details).to.deep.include({ ids: [b.inv2] });
    });

    it('apply answers stale when a record changed after the revert was staged, and writes nothing', async () => {
      const b = reconcileBooks();
      const t = await loaded(b.books);
      const id = await applied(
        t.bob,
        reconcile(t.alice, b.account, '2026-02-28', 107_000, [b.inflow.txn, b.outflow.txn]),
      );
      const staged = await stageRevert(t.alice, id);
      const revertId = staged.body.data.staged_operation_id;
      expect((await approve(t.bob, revertId)).status).to.equal(200);
      const { db } = await stack();
      await db
        .collection('bank_transactions')
        .updateOne({ _id: b.outflow.txn } as never, { $set: { remittance_info: 'edited' }, $inc: { version: 1 } });
      const res = await apply(t.bob, revertId);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error.code).to.equal('stale_plan');
      expect((await doc('bank_transactions', b.inflow.txn))!.status).to.equal('reconciled');
      expect((await show(t.bob, id)).body.data.reverted_by).to.equal(undefined);
    });
  });
});
