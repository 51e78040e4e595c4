// The stored open amounts of entries (docs/design/entry-open-amounts.md) stay
// what the entries and their links give, after a books import and after the
// apply of each kind that writes entries or links, and after a revert: each
// step recomputes them from the store and compares with the stored rows.
import { expect } from 'chai';
import type { BankLink, Org } from '../../shared/domain/books.js';
import { linkedByEntry, openAmountRows, type OpenAmountEntry } from '../../shared/domain/entry-open-amounts.js';
import {
  fillMissingOpenAmounts,
  OPEN_AMOUNTS_FORMAT,
  readAllOpenAmounts,
} from '../../shared/storage/entry-open-amounts.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';
import { Books } from '../helpers/books.js';
import { call, type Answer } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, STAGED } from '../helpers/staged.js';

type StageData = { staged_operation_id: string };

/** What the rows should be: recomputed from the entries, links and org as stored now. */
async function expectedRows(orgId: string) {
  const { db } = await stack();
  const [org, entries, links] = await Promise.all([
    db.collection<{ _id: string } & Omit<Org, 'id'>>('orgs').findOne({ _id: orgId }),
    db.collection('ledger_entries').find({ org_id: orgId }).toArray(),
    db.collection('bank_links').find({ org_id: orgId }).toArray(),
  ]);
  const asEntries = entries.map(({ _id, ...rest }) => ({ id: String(_id), ...rest }) as unknown as OpenAmountEntry);
  return openAmountRows(asEntries, linkedByEntry(links as unknown as BankLink[]), org?.settlement_accounts ?? []).sort(
    (a, b) => (a.id < b.id ? -1 : 1),
  );
}

async function expectConsistent(orgId: string, step: string): Promise<void> {
  const { db } = await stack();
  const stored = (await readAllOpenAmounts(db, orgId)).sort((a, b) => (a.id < b.id ? -1 : 1));
  expect(stored, step).to.deep.equal(await expectedRows(orgId));
}

async function approveApply(bob: string, staging: Promise<Answer<StageData>>): Promise<string> {
  const staged = await staging;
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = staged.body.data.staged_operation_id;
  expect((await approve(bob, id)).status).to.equal(200);
  const applied = await apply(bob, id);
  expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  expect((applied.body.data as { status?: string }).status, JSON.stringify(applied.body)).to.equal('applied');
  return id;
}

describe('stored open amounts of entries', function () {
  this.timeout(120_000);

  it('equal what the entries and links give after an import, each kind that writes links, and a revert', async () => {
    const books = new Books();
    const account = books.account();
    const cpA = books.cp('a');
    const cpB = books.cp('b');
    const bank = books.cp('bank');
    const e1 = books.invoice(10_000, { counterparty_id: cpA, entry_date: '2026-01-05' });
    books.invoice(6_000, { counterparty_id: cpA, entry_date: '2026-01-06' });
    const e3 = books.invoice(4_000, { counterparty_id: cpB, entry_date: '2026-01-07' });
    books.invoice(-3_000, { counterparty_id: cpB, entry_date: '2026-01-08' });
    const t1 = books.txn(account, 10_000, { booking_date: '2026-01-20', counterparty_id: cpA });
    books.txn(account, 6_000, { booking_date: '2026-01-21', counterparty_id: cpA });
    const t3 = books.txn(account, 4_000, { booking_date: '2026-01-22', counterparty_id: cpB });
    const fee = books.txn(account, -350, { booking_date: '2026-01-23', counterparty_id: bank });
    books.link(t1, e1, 2_000);
    const s = await stack();
    await s.load(books.file);
    const orgId = books.orgId;
    const { alice, bob } = await actors(orgId);
    await expectConsistent(orgId, 'after the import');
    // The partly linked entry is stored with what is left of it.
    expect((await readAllOpenAmounts(s.db, orgId)).find((r) => r.id === e1)?.open_minor).to.equal(8_000);

    await approveApply(
      bob,
      call<StageData>('POST', '/api/v1/cli/bank-matches/match/stage', {
        token: alice,
        body: {
          bank_account_id: account,
          matches: [{ bank_transaction_id: t3, ledger_entry_id: e3, amount_minor: 4_000 }],
        },
      }),
    );
    await expectConsistent(orgId, 'after a bank match');
    expect((await readAllOpenAmounts(s.db, orgId)).map((r) => r.id)).not.to.include(e3);

    await approveApply(
      bob,
      call<StageData>('POST', '/api/v1/cli/ledger/entries/stage', {
        token: alice,
        body: bankFeeEntry(bank, {
          entry_date: '2026-01-23',
          description: 'Bank fee',
          reference: 'FEE-1',
          bank_transaction_id: fee,
        }),
      }),
    );
    await expectConsistent(orgId, 'after a journal entry that books a transaction');

    const repair = await approveApply(
      bob,
      call<StageData>('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage', {
        token: alice,
        body: { bank_account_id: account, counterparty_id: cpA, as_of: '2026-02-28' },
      }),
    );
    await expectConsistent(orgId, 'after a link repair');
    const repaired = await readAllOpenAmounts(s.db, orgId);

    await approveApply(bob, call<StageData>('POST', `${STAGED}/${repair}/revert/stage`, { token: alice, body: {} }));
    await expectConsistent(orgId, 'after the revert of the link repair');
    expect(await readAllOpenAmounts(s.db, orgId)).not.to.deep.equal(repaired);

    await approveApply(
      bob,
      call<StageData>('POST', `/api/v1/cli/ledger/entries/${e1}/reverse/stage`, { token: alice, body: {} }),
    );
    await expectConsistent(orgId, 'after a reversal');
    const reversal = await s.db.collection('ledger_entries').findOne({ org_id: orgId, reversal_of: e1 });
    expect(reversal, 'the reversing entry').to.not.equal(null);
    // Neither the reversed entry nor the one reversing it is open (docs/design/entry-open-amounts.md).
    expect((await readAllOpenAmounts(s.db, orgId)).map((r) => r.id))
      .not.to.include(e1)
      .and.not.to.include(String(reversal!._id));

    // Rows filled by the earlier rule (a row for the reversing entry, a mark without format) are filled again.
    const fills = s.db.collection<{ _id: string; format?: number }>('entry_open_fills');
    await s.db.collection('entry_open_amounts').insertOne({
      _id: String(reversal!._id) as never,
      org_id: orgId,
      currency: 'EUR',
      direction: 'out',
      open_minor: 10_000,
      open_amount_minor: -10_000,
      counterparty_id: cpA,
      entry_date: '2026-12-31',
      reference: 'old rule',
    });
    await fills.updateOne({ _id: orgId }, { $unset: { format: '' } });
    expect(await fillMissingOpenAmounts(s.db)).to.be.at.least(1);
    await expectConsistent(orgId, 'after the fill by this rule');
    expect((await fills.findOne({ _id: orgId }))?.format).to.equal(OPEN_AMOUNTS_FORMAT);

    // A second import of the books as first loaded puts the rows back to what they give.
    await s.load(books.file);
    await expectConsistent(orgId, 'after a re-import');
  });
});
