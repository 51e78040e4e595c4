// Match suggestions and their declines through the real API, read queue,
// worker and store (docs/reference/http-api.md §8.2), and the loop an agent
// runs: suggest → stage the match → approve → apply → nothing left to suggest.
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve } from '../helpers/staged.js';
import type { MatchSuggestionList } from '../../shared/contract/reads.js';
import { CANDIDATES_PER_SIDE } from '../../shared/domain/match-suggestions.js';

const suggestPath = (id: string, query = '') => `/api/v1/cli/bank-transactions/${id}/match-suggestions${query}`;
const declinePath = (id: string) => `/api/v1/cli/bank-transactions/${id}/match-suggestions/decline`;

const ids = (data: MatchSuggestionList) =>
  data.suggestions.map((s) => [...s.entries.map((e) => e.id), ...s.documents.map((d) => d.id)].join('+'));

/** Money in of 24,900 naming INV-2026-0042, with candidates of every kind. */
async function world() {
  const books = new Books();
  const account = books.account();
  const cpA = books.cp('a');
  const cpB = books.cp('b');
  const referenced = books.invoice(24_900, { reference: 'INV-2026-0042', entry_date: '2026-02-01' });
  const sameCp = books.invoice(24_900, { entry_date: '2026-03-01' });
  const set1 = books.invoice(20_000, { counterparty_id: cpB, entry_date: '2026-03-02' });
  const set2 = books.invoice(4_900, { counterparty_id: cpB, entry_date: '2026-03-04' });
  const partial = books.invoice(30_000, { counterparty_id: cpB, entry_date: '2026-03-09' });
  books.invoice(-24_900, { entry_date: '2026-03-09' }); // a payable: the other direction
  books.invoice(24_900, { currency: 'USD' }); // another currency
  const receipt = books.doc({
    received_at: '2026-03-08T09:00:00.000Z',
    extracted: { total_minor: 24_900, currency: 'EUR', vendor_name: 'Other Vendor', invoice_number: 'X-1' },
  });
  books.doc({ extracted: { total_minor: 24_901, currency: 'EUR' } });
  const txn = books.txn(account, 24_900, {
    booking_date: '2026-03-10',
    counterparty_id: cpA,
    counterparty_name: 'Customer A',
    remittance_info: 'Invoice INV 2026 0042',
  });
  const s = await stack();
  await s.load(books.file);
  const who = await actors(books.orgId);
  const reader = await s.token(books.orgId, ['books:read']);
  return { books, account, txn, referenced, sameCp, set1, set2, partial, receipt, reader, ...who };
}

describe('GET /bank-transactions/{id}/match-suggestions', () => {
  it('ranks exact fits first, then a reference in the remittance text, the counterparty, the nearer date; each with its signals', async () => {
    const w = await world();
    const res = await call<MatchSuggestionList>('GET', suggestPath(w.txn, '?limit=20'), { token: w.reader });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.operation).to.equal('match_suggestions.list');
    const data = res.body.data;
    expect(data.transaction).to.include({ id: w.txn, remainder_minor: 24_900 });
    expect(data.remaining_minor).to.equal(24_900);
    expect(data.declined).to.equal(0);
    expect(ids(data)).to.deep.equal([
      w.referenced,
      w.sameCp,
      w.receipt,
      `${w.set1}+${w.set2}`,
      w.partial,
      w.set2,
      w.set1,
    ]);
    expect(data.suggestions[0]).to.deep.equal({
      entries: [{ id: w.referenced, open_minor: 24_900 }],
      documents: [],
      amount_fit: 'exact',
      score: 0.933,
      signals: { reference: 'INV-2026-0042 in the remittance text', counterparty: 'same counterparty', date_days: 37 },
    });
    expect(data.suggestions.map((s) => [s.amount_fit, s.signals.counterparty, s.signals.date_days])).to.deep.equal([
      ['exact', 'same counterparty', 37],
      ['exact', 'same counterparty', 9],
      ['exact', null, 2],
      ['exact', null, 6],
      ['partial', null, 1],
      ['partial', null, 6],
      ['partial', null, 8],
    ]);
    expect(data.suggestions[2]!.documents).to.deep.equal([{ id: w.receipt, total_minor: 24_900 }]);
  });

  it('limit: default 5, 1–20, anything else refused', async () => {
    const w = await world();
    const five = await call<MatchSuggestionList>('GET', suggestPath(w.txn), { token: w.reader });
    expect(five.body.data.suggestions).to.have.length(5);
    const one = await call<MatchSuggestionList>('GET', suggestPath(w.txn, '?limit=1'), { token: w.reader });
    expect(ids(one.body.data)).to.deep.equal([w.referenced]);
    for (const bad of ['?limit=0', '?limit=21', '?other=1']) {
      const res = await call('GET', suggestPath(w.txn, bad), { token: w.reader });
      expect(res.status, bad).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
    }
  });

  it("404 for an unknown or another organisation's transaction", async () => {
    const w = await world();
    const theirs = await world();
    for (const id of ['bt_missing', theirs.txn]) {
      const res = await call('GET', suggestPath(id), { token: w.reader });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.deep.include({ code: 'not_found', details: { resource: 'Bank transaction', id } });
    }
  });

  it('a declined entry never returns, alone or in a set; a declined document never returns; declining twice is one decline', async () => {
    const w = await world();
    const declined = await call<{ bank_transaction_id: string; declined: number }>('POST', declinePath(w.txn), {
      token: w.alice,
      body: { ledger_entry_ids: [w.referenced, w.set2] },
    });
    expect(declined.status, JSON.stringify(declined.body)).to.equal(200);
    expect(declined.body.data).to.deep.equal({ bank_transaction_id: w.txn, declined: 2 });
    const doc = await call<{ declined: number }>('POST', declinePath(w.txn), {
      token: w.alice,
      body: { document_id: w.receipt },
    });
    expect(doc.body.data.declined).to.equal(3);
    const again = await call<{ declined: number }>('POST', declinePath(w.txn), {
      token: w.alice,
      body: { ledger_entry_ids: [w.referenced] },
    });
    expect(again.body.data.declined).to.equal(3);

    const res = await call<MatchSuggestionList>('GET', suggestPath(w.txn, '?limit=20'), { token: w.reader });
    expect(ids(res.body.data)).to.deep.equal([w.sameCp, w.partial, w.set1]);
    expect(res.body.data.declined).to.equal(3);
  });

  it('decline refusals: 404 for an unknown entry or document, 400 for a body with both or neither, 403 without bank:stage', async () => {
    const w = await world();
    const entry = await call('POST', declinePath(w.txn), {
      token: w.alice,
      body: { ledger_entry_ids: ['le_nowhere'] },
    });
    expect(entry.status).to.equal(404);
    expect(entry.body.error.details).to.deep.equal({ resource: 'Ledger entry', id: 'le_nowhere' });
    const document = await call('POST', declinePath(w.txn), { token: w.alice, body: { document_id: 'doc_nowhere' } });
    expect(document.status).to.equal(404);
    const txn = await call('POST', declinePath('bt_nowhere'), { token: w.alice, body: { document_id: w.receipt } });
    expect(txn.status).to.equal(404);
    for (const body of [{}, { ledger_entry_ids: [w.sameCp], document_id: w.receipt }, { ledger_entry_ids: [] }]) {
      const res = await call('POST', declinePath(w.txn), { token: w.alice, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
    }
    const forbidden = await call('POST', declinePath(w.txn), { token: w.reader, body: { document_id: w.receipt } });
    expect(forbidden.status).to.equal(403);
    // Nothing was recorded by any of them.
    const res = await call<MatchSuggestionList>('GET', suggestPath(w.txn), { token: w.reader });
    expect(res.body.data.declined).to.equal(0);
  });

  it('the loop: suggest → stage the best suggestion as a bank match → approve → apply → nothing left to suggest', async () => {
    const w = await world();
    const suggested = await call<MatchSuggestionList>('GET', suggestPath(w.txn), { token: w.reader });
    const best = suggested.body.data.suggestions[0]!;
    const staged = await call<{ staged_operation_id: string }>('POST', '/api/v1/cli/bank-matches/match/stage', {
      token: w.alice,
      body: {
        bank_account_id: w.account,
        matches: best.entries.map((e) => ({
          bank_transaction_id: w.txn,
          ledger_entry_id: e.id,
          amount_minor: e.open_minor,
        })),
      },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(w.bob, id)).status).to.equal(200);
    expect((await apply(w.bob, id)).status).to.equal(200);
    const after = await call<MatchSuggestionList>('GET', suggestPath(w.txn), { token: w.reader });
    expect(after.body.data.remaining_minor).to.equal(0);
    expect(after.body.data.suggestions).to.deep.equal([]);
    expect(after.body.data.transaction).to.include({ link_state: 'full' });
  });

  it('a partly linked transaction: only what is left is matched, and its own entries are no candidates', async () => {
    const books = new Books();
    const account = books.account();
    const first = books.invoice(10_000);
    const rest = books.invoice(14_900);
    const txn = books.txn(account, 24_900);
    books.link(txn, first, 10_000);
    const s = await stack();
    await s.load(books.file);
    const reader = await s.token(books.orgId, ['books:read']);
    const res = await call<MatchSuggestionList>('GET', suggestPath(txn), { token: reader });
    expect(res.body.data.remaining_minor).to.equal(14_900);
    expect(ids(res.body.data)).to.deep.equal([rest]);
    expect(res.body.data.suggestions[0]!.amount_fit).to.equal('exact');
  });

  it("candidates are bounded: the exact amount's and the counterparty's entries from any date, others only near the booking date", async () => {
    const books = new Books();
    const account = books.account();
    const [own, other, far] = [books.cp('a'), books.cp('b'), books.cp('c')];
    // More open entries of another counterparty on each side of the booking date than a suggestion reads of them.
    const day = (base: string, i: number) =>
      new Date(Date.parse(`${base}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10);
    for (let i = 0; i < CANDIDATES_PER_SIDE.near + 20; i += 1) {
      books.invoice(1_000, { counterparty_id: other, entry_date: day('2026-01-01', i) });
      books.invoice(1_000, { counterparty_id: other, entry_date: day('2026-07-01', i) });
    }
    const farExact = books.invoice(24_900, { counterparty_id: far, entry_date: '2024-12-01' });
    const farReferenced = books.invoice(5_000, {
      counterparty_id: far,
      entry_date: '2025-01-01',
      reference: 'REF-7777',
    });
    const farOwn = books.invoice(6_000, { counterparty_id: own, entry_date: '2025-01-02' });
    const set1 = books.invoice(20_000, { counterparty_id: own, entry_date: '2025-01-03' });
    const set2 = books.invoice(4_900, { counterparty_id: own, entry_date: '2025-01-04' });
    const remittance = { counterparty_name: 'Customer A', remittance_info: 'Payment REF-7777' };
    const late = books.txn(account, 24_900, { booking_date: '2026-06-15', counterparty_id: own, ...remittance });
    const early = books.txn(account, 24_900, { booking_date: '2025-01-10', counterparty_id: own, ...remittance });
    const s = await stack();
    await s.load(books.file);
    const reader = await s.token(books.orgId, ['books:read']);

    const far_ = await call<MatchSuggestionList>('GET', suggestPath(late, '?limit=20'), { token: reader });
    expect(far_.status, JSON.stringify(far_.body)).to.equal(200);
    // The own counterparty's set and the exact amount come from far back; the far entry whose reference the text names
    // is of neither group and outside the nearest dates, so it is no candidate.
    expect(ids(far_.body.data).slice(0, 5)).to.deep.equal([`${set1}+${set2}`, farExact, set2, set1, farOwn]);
    expect(ids(far_.body.data)).to.have.length(20).and.not.include(farReferenced);

    // Near its date the same entry is a candidate, and its reference ranks it first of the partial fits.
    const near = await call<MatchSuggestionList>('GET', suggestPath(early, '?limit=20'), { token: reader });
    expect(ids(near.body.data).slice(0, 3)).to.deep.equal([`${set1}+${set2}`, farExact, farReferenced]);
    expect(near.body.data.suggestions[2]!.signals.reference).to.equal('REF-7777 in the remittance text');
  });
});
