// The suggestion order (docs/reference/http-api.md §8.2), one rule per test,
// with exact answers: shared/domain/match-suggestions.ts.
import { expect } from 'chai';
import {
  exactSets,
  MAX_TRIPLE_TRIES,
  inRemittance,
  rankSuggestions,
  similarNames,
  type CandidateDocument,
  type CandidateEntry,
  type SuggestionInput,
} from '../../shared/domain/match-suggestions.js';

const txn = (fields: Partial<SuggestionInput['transaction']> = {}): SuggestionInput['transaction'] => ({
  id: 'bt_1',
  booking_date: '2026-03-10',
  amount_minor: 24_900,
  currency: 'EUR',
  counterparty_id: null,
  counterparty_name: '',
  remittance_info: '',
  ...fields,
});

const entry = (id: string, open: number, fields: Partial<CandidateEntry> = {}): CandidateEntry => ({
  id,
  entry_date: '2026-03-01',
  reference: `R-${id}-X`,
  counterparty_id: 'cp_z',
  currency: 'EUR',
  open_amount_minor: open,
  open_minor: Math.abs(open),
  ...fields,
});

const input = (fields: Partial<SuggestionInput>): SuggestionInput => ({
  transaction: txn(),
  remaining_minor: 24_900,
  entries: [],
  documents: [],
  counterparty_names: new Map(),
  declined_entry_ids: new Set(),
  declined_document_ids: new Set(),
  limit: 20,
  ...fields,
});

const ids = (s: ReturnType<typeof rankSuggestions>) =>
  s.map((x) => [...x.entries.map((e) => e.id), ...x.documents.map((d) => d.id)].join('+'));

describe('match suggestions (pure ranking)', () => {
  it('an exact fit ranks above a partial one, even when the partial one is nearer, named and referenced', () => {
    const s = rankSuggestions(
      input({
        transaction: txn({ counterparty_id: 'cp_a', remittance_info: 'pays R-le_b-X' }),
        entries: [
          entry('le_a', 24_900, { entry_date: '2026-01-01' }),
          entry('le_b', 30_000, { counterparty_id: 'cp_a', entry_date: '2026-03-10' }),
        ],
      }),
    );
    expect(s).to.deep.equal([
      {
        entries: [{ id: 'le_a', open_minor: 24_900 }],
        documents: [],
        amount_fit: 'exact',
        score: 0.557,
        signals: { reference: null, counterparty: null, date_days: 68 },
      },
      {
        entries: [{ id: 'le_b', open_minor: 30_000 }],
        documents: [],
        amount_fit: 'partial',
        score: 0.45,
        signals: { reference: 'R-le_b-X in the remittance text', counterparty: 'same counterparty', date_days: 0 },
      },
    ]);
  });

  it('at the same fit, a reference or invoice number in the remittance text ranks first (letters and digits compared)', () => {
    const s = rankSuggestions(
      input({
        transaction: txn({ remittance_info: 'Invoice inv 2026 0042, thanks' }),
        entries: [
          entry('le_a', 24_900, { entry_date: '2026-03-10' }),
          entry('le_b', 24_900, { reference: 'INV-2026-0042', entry_date: '2026-01-10' }),
        ],
      }),
    );
    expect(ids(s)).to.deep.equal(['le_b', 'le_a']);
    expect(s[0]!.signals).to.deep.equal({
      reference: 'INV-2026-0042 in the remittance text',
      counterparty: null,
      date_days: 59,
    });
    expect(s.map((x) => x.score)).to.deep.equal([0.808, 0.63]);
  });

  it('then the counterparty: the same id, or the bank name similar to the name the counterparty read gives', () => {
    const s = rankSuggestions(
      input({
        transaction: txn({ counterparty_id: 'cp_a', counterparty_name: 'ACME Tools GmbH' }),
        entries: [
          entry('le_near', 24_900, { counterparty_id: 'cp_q', entry_date: '2026-03-10' }),
          entry('le_same', 24_900, { counterparty_id: 'cp_a', entry_date: '2026-02-01' }),
          entry('le_named', 24_900, { counterparty_id: 'cp_b', entry_date: '2026-02-01' }),
        ],
        counterparty_names: new Map([
          ['cp_b', 'Acme Tools'],
          ['cp_q', 'Quux Ltd'],
        ]),
      }),
    );
    expect(ids(s)).to.deep.equal(['le_named', 'le_same', 'le_near']);
    expect(s.map((x) => x.signals.counterparty)).to.deep.equal(['similar name: Acme Tools', 'same counterparty', null]);
  });

  it('then the nearer date: an entry’s date, a set’s latest, a document’s invoice date or else its received date', () => {
    const doc = (id: string, fields: Partial<CandidateDocument>): CandidateDocument => ({
      id,
      received_at: '2026-03-09T08:00:00.000Z',
      invoice_number: null,
      invoice_date: null,
      vendor_name: null,
      total_minor: 24_900,
      currency: 'EUR',
      ...fields,
    });
    const s = rankSuggestions(
      input({
        entries: [
          entry('le_far', 24_900, { entry_date: '2026-02-08' }),
          entry('le_s1', 20_000, { entry_date: '2026-01-01' }),
          entry('le_s2', 4_900, { entry_date: '2026-03-05' }),
        ],
        documents: [doc('doc_received', {}), doc('doc_invoiced', { invoice_date: '2026-03-03' })],
      }),
    );
    expect(ids(s)).to.deep.equal(['doc_received', 'le_s1+le_s2', 'doc_invoiced', 'le_far', 'le_s2', 'le_s1']);
    expect(s.map((x) => x.signals.date_days)).to.deep.equal([1, 5, 7, 30, 5, 68]);
    expect(s.map((x) => x.amount_fit)).to.deep.equal(['exact', 'exact', 'exact', 'exact', 'partial', 'partial']);
  });

  it('ties by id (a set by its entries’ ids), and at most `limit`', () => {
    const s = rankSuggestions(
      input({
        entries: [entry('le_c', 24_900), entry('le_a', 24_900), entry('le_b', 24_900)],
        limit: 2,
      }),
    );
    expect(ids(s)).to.deep.equal(['le_a', 'le_b']);
  });

  it('candidates: the same currency and direction only, open ones; nothing when nothing is left unlinked', () => {
    const entries = [
      entry('le_usd', 24_900, { currency: 'USD' }),
      entry('le_payable', -24_900),
      entry('le_settled', 24_900, { open_minor: 0 }),
      entry('le_ok', 24_900),
    ];
    expect(ids(rankSuggestions(input({ entries })))).to.deep.equal(['le_ok']);
    expect(ids(rankSuggestions(input({ entries, transaction: txn({ amount_minor: -24_900 }) })))).to.deep.equal([
      'le_payable',
    ]);
    expect(rankSuggestions(input({ entries, remaining_minor: 0 }))).to.deep.equal([]);
  });

  it('sets of two or three entries of one counterparty summing exactly to the remaining amount', () => {
    const open = [
      entry('le_1', 10_000, { counterparty_id: 'cp_a' }),
      entry('le_2', 14_900, { counterparty_id: 'cp_a' }),
      entry('le_3', 4_900, { counterparty_id: 'cp_a' }),
      entry('le_4', 10_000, { counterparty_id: 'cp_a' }),
      entry('le_5', 14_900, { counterparty_id: 'cp_b' }),
    ];
    expect(exactSets(open, 24_900).map((set) => set.map((e) => e.id).join('+'))).to.deep.equal([
      'le_1+le_2',
      'le_1+le_3+le_4',
      'le_2+le_4',
    ]);
  });

  it('sets of three are sought within a bounded number of tries; single entries and pairs always', () => {
    // 2,000 entries whose amounts (odd, 300,001–303,999) never make the remaining amount, then a triple and two pairs.
    const open = Array.from({ length: 2_000 }, (_, i) =>
      entry(`le_${String(i).padStart(4, '0')}`, 300_001 + 2 * i, { counterparty_id: 'cp_a' }),
    );
    open.push(
      entry('le_x1', 400_000, { counterparty_id: 'cp_a' }),
      entry('le_x2', 500_000, { counterparty_id: 'cp_a' }),
      entry('le_x3', 100_000, { counterparty_id: 'cp_a' }),
      entry('le_y1', 900_000, { counterparty_id: 'cp_a' }),
      entry('le_y2', 100_000, { counterparty_id: 'cp_a' }),
    );
    const found = (maxTries?: number) =>
      exactSets(open, 1_000_000, maxTries).map((set) => set.map((e) => e.id).join('+'));
    // The first 2,000 entries' pairs are tried before the triple's first member: 2,009,000 tries.
    expect(found()).to.deep.equal(['le_x3+le_y1', 'le_y1+le_y2']);
    expect(MAX_TRIPLE_TRIES).to.equal(1_000_000);
    expect(found(3_000_000)).to.deep.equal(['le_x1+le_x2+le_x3', 'le_x1+le_x2+le_y2', 'le_x3+le_y1', 'le_y1+le_y2']);
  });

  it('a declined entry never returns, alone or in a set; a declined document never returns', () => {
    const s = rankSuggestions(
      input({
        entries: [entry('le_1', 10_000), entry('le_2', 14_900), entry('le_3', 24_900)],
        documents: [
          {
            id: 'doc_1',
            received_at: '2026-03-01T00:00:00Z',
            invoice_number: null,
            invoice_date: null,
            vendor_name: null,
            total_minor: 24_900,
            currency: 'EUR',
          },
        ],
        declined_entry_ids: new Set(['le_2']),
        declined_document_ids: new Set(['doc_1']),
      }),
    );
    expect(ids(s)).to.deep.equal(['le_3', 'le_1']);
  });

  it('signals: references shorter than four letters or digits are no signal; names compare as vendor names', () => {
    expect(inRemittance('order 42 paid', '42')).to.equal(false);
    expect(inRemittance('RE 0042/2026', 're-0042-2026')).to.equal(true);
    expect(similarNames('ACME GMBH', 'Acme')).to.equal(true);
    expect(similarNames('Acme Tools', 'Acme Paints')).to.equal(false);
    expect(similarNames('', 'Acme')).to.equal(false);
  });
});
