// The open-amount rule of an entry (shared/domain/entry-open-amounts.ts):
// exact rows, and a refresh after a journal that wrote links only
// (reopenedRows: the stored rows' fields, the new links) gives the rows the
// entries themselves give (docs/design/entry-open-amounts.md).
import { expect } from 'chai';
import {
  linkedByEntry,
  openAmountRows,
  reopenedRows,
  touchedEntries,
  type EntryOpenAmount,
  type OpenAmountEntry,
} from '../../shared/domain/entry-open-amounts.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const SETTLEMENT = ['1400', '1600'];

const entry = (id: string, lines: Array<[string, number, number]>, status: 'posted' | 'reversed' = 'posted') =>
  ({
    id,
    status,
    entry_date: '2026-03-01',
    reference: `R-${id}`,
    counterparty_id: 'cp_1',
    currency: 'EUR',
    lines: lines.map(([account, debit_minor, credit_minor]) => ({ account, debit_minor, credit_minor })),
  }) satisfies OpenAmountEntry;

const links = (pairs: Array<[string, number]>) =>
  linkedByEntry(pairs.map(([ledger_entry_id, amount_minor]) => ({ ledger_entry_id, amount_minor })));

const byId = (a: EntryOpenAmount, b: EntryOpenAmount) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe('open amounts of entries', () => {
  it('a posted entry is open by its settlement lines less its links; a reversed or reversing one is not', () => {
    const rows = openAmountRows(
      [
        entry('e_in', [
          ['1400', 10_000, 0],
          ['8400', 0, 10_000],
        ]),
        entry('e_out', [
          ['4900', 3_050, 0],
          ['1600', 0, 3_050],
        ]),
        entry('e_settled', [
          ['1400', 500, 0],
          ['8400', 0, 500],
        ]),
        entry('e_over', [
          ['1400', 500, 0],
          ['8400', 0, 500],
        ]),
        entry('e_off', [
          ['4900', 700, 0],
          ['1200', 0, 700],
        ]),
        entry(
          'e_reversed',
          [
            ['1400', 900, 0],
            ['8400', 0, 900],
          ],
          'reversed',
        ),
        // The entry reversing e_reversed: it settles it, so it is not open, though its settlement line is.
        {
          ...entry('e_reversal', [
            ['8400', 900, 0],
            ['1400', 0, 900],
          ]),
          reversal_of: 'e_reversed',
        },
      ],
      links([
        ['e_in', 2_000],
        ['e_in', 1],
        ['e_settled', 500],
        ['e_over', 600],
      ]),
      SETTLEMENT,
    );
    expect(rows).to.deep.equal([
      {
        id: 'e_in',
        currency: 'EUR',
        direction: 'in',
        open_minor: 7_999,
        open_amount_minor: 10_000,
        counterparty_id: 'cp_1',
        entry_date: '2026-03-01',
        reference: 'R-e_in',
      },
      {
        id: 'e_out',
        currency: 'EUR',
        direction: 'out',
        open_minor: 3_050,
        open_amount_minor: -3_050,
        counterparty_id: 'cp_1',
        entry_date: '2026-03-01',
        reference: 'R-e_out',
      },
    ]);
  });

  it('a stored row with new links gives what its entry gives', () => {
    const e = entry('e_1', [
      ['1400', 10_000, 0],
      ['8400', 0, 10_000],
    ]);
    const [stored] = openAmountRows([e], links([['e_1', 2_000]]), SETTLEMENT);
    expect(reopenedRows([stored!], links([['e_1', 9_000]]))).to.deep.equal([{ ...stored!, open_minor: 1_000 }]);
    expect(reopenedRows([stored!], links([['e_1', 10_000]]))).to.deep.equal([]);
    expect(reopenedRows([stored!], links([]))).to.deep.equal(openAmountRows([e], links([]), SETTLEMENT));
  });

  it('after links change, stored rows and the entries without one give the rows of every entry (300 seeds)', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const r = mulberry32(seed);
      const n = 1 + Math.floor(r() * 12);
      const entries = Array.from({ length: n }, (_, i) => {
        const amount = Math.floor(r() * 5_000) - 2_000;
        const settle = r() < 0.8 ? SETTLEMENT[Math.floor(r() * 2)]! : '4900';
        return entry(
          `e_${i}`,
          amount >= 0
            ? [
                [settle, amount, 0],
                ['8400', 0, amount],
              ]
            : [
                ['4900', -amount, 0],
                [settle, 0, -amount],
              ],
          r() < 0.1 ? 'reversed' : 'posted',
        );
      });
      const someLinks = () =>
        links(
          entries.flatMap((e) =>
            Array.from({ length: Math.floor(r() * 3) }, () => [e.id, 1 + Math.floor(r() * 2_500)] as [string, number]),
          ),
        );
      const before = openAmountRows(entries, someLinks(), SETTLEMENT);
      const after = someLinks();
      const withRow = new Set(before.map((row) => row.id));
      const refreshed = [
        ...openAmountRows(
          entries.filter((e) => !withRow.has(e.id)),
          after,
          SETTLEMENT,
        ),
        ...reopenedRows(before, after),
      ].sort(byId);
      expect(refreshed, `seed ${seed}`).to.deep.equal(openAmountRows(entries, after, SETTLEMENT).sort(byId));
    }
  });

  it('a journal of links writes no entry; one that writes an entry says so', () => {
    const link = {
      action: 'insert' as const,
      collection: 'bank_links' as const,
      id: 'bl_1',
      doc: { bank_transaction_id: 'bt_1', ledger_entry_id: 'e_1', amount_minor: 100 },
    };
    expect(touchedEntries([link])).to.deep.equal({
      entry_ids: ['e_1'],
      link_ids: [],
      whole_org: false,
      entries_written: false,
    });
    const reversed = {
      action: 'update' as const,
      collection: 'ledger_entries' as const,
      id: 'e_2',
      version: 1,
      set: { status: 'reversed' },
      before: { status: 'posted' },
    };
    expect(touchedEntries([link, reversed])).to.deep.equal({
      entry_ids: ['e_1', 'e_2'],
      link_ids: [],
      whole_org: false,
      entries_written: true,
    });
  });
});
