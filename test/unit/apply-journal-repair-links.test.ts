// Which link a repair's apply gives each moved or linked amount to
// (shared/kinds/ledger-link-repair/journal.ts, docs/design/staged-lifecycle.md "Apply"):
// the transaction's link to the entry that the journal already touches and
// that still holds an amount (the first one touched), else the stored one with
// the lowest id, else a new one. Checked against that rule written as
// plainly as it reads, one scan of every link per action, on random plans
// whose pairs share links, empty them and fill them again.
import { expect } from 'chai';
import type { ApplyBooks, JournalContext, JournalWrite } from '../../shared/domain/apply-journal.js';
import { planJournal, planJournalWithLinks } from '../../shared/kinds/journals.js';
import { repairLinkId } from '../../shared/kinds/ledger-link-repair/journal.js';
import { compareIds, type BankLink } from '../../shared/domain/books.js';
import type { LinkRepairPlan, RepairAction } from '../../shared/kinds/ledger-link-repair/plan.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const ctx: JournalContext = {
  staged_operation_id: 'stg_9',
  org_id: 'org_9',
  actor: 'bob',
  now: '2026-03-10T12:00:00.000Z',
};

interface Reference {
  writes: JournalWrite[];
  links: Array<{ action_index: number; link_id: string }>;
}

/** The rule, one scan of every link per action: the oracle. */
function reference(plan: LinkRepairPlan, links: BankLink[]): Reference {
  const known = new Map(links.map((l) => [l.id, l]));
  const state = new Map<string, { original: BankLink | null; current: Omit<BankLink, 'id' | 'version'> }>();
  const order: string[] = [];
  const fields = (l: BankLink): Omit<BankLink, 'id' | 'version'> => ({
    bank_transaction_id: l.bank_transaction_id,
    ledger_entry_id: l.ledger_entry_id,
    amount_minor: l.amount_minor,
    created_at: l.created_at,
    created_by: l.created_by,
  });
  const get = (id: string) => {
    if (!state.has(id)) {
      const stored = known.get(id);
      if (!stored) return null;
      state.set(id, { original: stored, current: fields(stored) });
      order.push(id);
    }
    return state.get(id)!;
  };
  const give = (t: string, e: string, amount: number): string => {
    const touched = order.find((id) => {
      const c = state.get(id)!.current;
      return c.bank_transaction_id === t && c.ledger_entry_id === e && c.amount_minor > 0;
    });
    const stored = links
      .filter((l) => l.bank_transaction_id === t && l.ledger_entry_id === e && !state.has(l.id))
      .sort((a, b) => compareIds(a.id, b.id))[0];
    const id = touched ?? stored?.id ?? repairLinkId(ctx, t, e);
    let s = get(id);
    if (!s) {
      s = {
        original: null,
        current: {
          bank_transaction_id: t,
          ledger_entry_id: e,
          amount_minor: 0,
          created_at: ctx.now,
          created_by: ctx.actor,
        },
      };
      state.set(id, s);
      order.push(id);
    }
    s.current.amount_minor += amount;
    return id;
  };
  const applied: Reference['links'] = [];
  plan.actions.forEach((a, i) => {
    if (a.kind === 'link') {
      applied.push({ action_index: i, link_id: give(a.bank_transaction_id, a.ledger_entry_id, a.amount_minor) });
      return;
    }
    get(a.link_id)!.current.amount_minor -= a.amount_minor;
    if (a.kind === 'move')
      applied.push({ action_index: i, link_id: give(a.bank_transaction_id, a.to_ledger_entry_id, a.amount_minor) });
  });
  const writes: JournalWrite[] = [];
  for (const id of order) {
    const { original, current } = state.get(id)!;
    const { id: _id, ...stored } = original ?? ({} as BankLink);
    if (!original) {
      if (current.amount_minor > 0)
        writes.push({ action: 'insert', collection: 'bank_links', id, doc: { ...current, version: 1 } });
    } else if (current.amount_minor === 0) {
      writes.push({ action: 'delete', collection: 'bank_links', id, version: original.version, doc: { ...stored } });
    } else if (current.amount_minor !== original.amount_minor) {
      writes.push({
        action: 'update',
        collection: 'bank_links',
        id,
        version: original.version,
        set: { amount_minor: current.amount_minor },
        before: { amount_minor: original.amount_minor },
      });
    }
  }
  return { writes, links: applied };
}

/** Random links over few transactions and entries (so pairs repeat), and a valid random run of moves, links and unlinks on them. */
function randomCase(seed: number): { plan: LinkRepairPlan; links: BankLink[] } {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const txns = ['bt_1', 'bt_2', 'bt_3', 'bt_4'];
  const entries = ['le_a', 'le_b', 'le_c'];
  const links: BankLink[] = Array.from({ length: 2 + Math.floor(rand() * 10) }, (_, i) => ({
    id: `lnk_${String(Math.floor(rand() * 1000)).padStart(3, '0')}_${i}`,
    bank_transaction_id: pick(txns),
    ledger_entry_id: pick(entries),
    amount_minor: 1 + Math.floor(rand() * 500),
    created_at: '2026-02-10T00:00:00.000Z',
    created_by: 'alice',
    version: 1 + Math.floor(rand() * 5),
  }));
  // What each link holds as the actions run, so every take is valid; links the journal creates join it.
  const holds = new Map(
    links.map((l) => [l.id, { t: l.bank_transaction_id, e: l.ledger_entry_id, amount: l.amount_minor }]),
  );
  const actions: RepairAction[] = [];
  for (let n = 0; n < 5 + Math.floor(rand() * 25); n += 1) {
    const full = [...holds.entries()].filter(([, h]) => h.amount > 0);
    const roll = rand();
    if (roll < 0.3 || full.length === 0) {
      const t = pick(txns);
      const e = pick(entries);
      const amount = 1 + Math.floor(rand() * 200);
      actions.push({ kind: 'link', bank_transaction_id: t, ledger_entry_id: e, amount_minor: amount });
      // Which link takes it is what is under test: the reference replays it; here only the pair's total matters for later takes.
      holds.set(`new:${t}:${e}:${n}`, { t, e, amount: 0 });
      continue;
    }
    const [id, h] = pick(full);
    if (id.startsWith('new:')) continue;
    const amount = 1 + Math.floor(rand() * h.amount);
    h.amount -= amount;
    if (roll < 0.8) {
      const to = pick(entries);
      actions.push({
        kind: 'move',
        bank_transaction_id: h.t,
        link_id: id,
        from_ledger_entry_id: h.e,
        to_ledger_entry_id: to,
        amount_minor: amount,
      });
    } else {
      actions.push({
        kind: 'unlink',
        bank_transaction_id: h.t,
        link_id: id,
        ledger_entry_id: h.e,
        amount_minor: amount,
      });
    }
  }
  const plan = {
    bank_account_id: 'ba_1',
    counterparty_id: 'cp_1',
    as_of: '2026-02-28',
    actions,
  } as unknown as LinkRepairPlan;
  return { plan, links };
}

describe('apply journal: the link each repaired amount goes to', () => {
  it('matches the rule on 500 random plans whose pairs share, empty and refill links', () => {
    let moves = 0;
    for (let seed = 1; seed <= 500; seed += 1) {
      const { plan, links } = randomCase(seed);
      const books: ApplyBooks = { entries: [], accounts: [], transactions: [], links };
      const journal = planJournal('ledger_link_repair', plan, books, ctx);
      if (!journal.ok) throw new Error(`seed ${seed}: ${journal.error.code}`);
      const want = reference(plan, links);
      expect(journal.value, `seed ${seed}`).to.deep.equal(want.writes);
      // What apply stores: both from one pass.
      expect(planJournalWithLinks('ledger_link_repair', plan, books, ctx), `seed ${seed}`).to.deep.equal({
        ok: true,
        value: { writes: want.writes, links: want.links },
      });
      moves += plan.actions.filter((a) => a.kind === 'move').length;
    }
    // The cases did exercise moves onto shared pairs, not only links.
    expect(moves).to.be.greaterThan(1000);
  });

  it("gives a pair's amounts to its stored link with the lowest id, and to a new link once that one is emptied by the journal", () => {
    const stored = (id: string, amount: number): BankLink => ({
      id,
      bank_transaction_id: 'bt_1',
      ledger_entry_id: 'le_a',
      amount_minor: amount,
      created_at: '2026-02-10T00:00:00.000Z',
      created_by: 'alice',
      version: 1,
    });
    const links = [stored('lnk_9', 100), stored('lnk_10', 50), { ...stored('lnk_x', 70), ledger_entry_id: 'le_b' }];
    const plan = {
      bank_account_id: 'ba_1',
      counterparty_id: 'cp_1',
      as_of: '2026-02-28',
      actions: [
        { kind: 'link', bank_transaction_id: 'bt_1', ledger_entry_id: 'le_a', amount_minor: 5 },
        { kind: 'unlink', bank_transaction_id: 'bt_1', link_id: 'lnk_10', ledger_entry_id: 'le_a', amount_minor: 55 },
        {
          kind: 'move',
          bank_transaction_id: 'bt_1',
          link_id: 'lnk_x',
          from_ledger_entry_id: 'le_b',
          to_ledger_entry_id: 'le_a',
          amount_minor: 70,
        },
      ],
    } as unknown as LinkRepairPlan;
    const books: ApplyBooks = { entries: [], accounts: [], transactions: [], links };
    // lnk_10 sorts before lnk_9 (ids compare by code unit); once the journal empties it, lnk_9 is the stored link left.
    const withLinks = planJournalWithLinks('ledger_link_repair', plan, books, ctx);
    expect(withLinks.ok && withLinks.value.links).to.deep.equal([
      { action_index: 0, link_id: 'lnk_10' },
      { action_index: 2, link_id: 'lnk_9' },
    ]);
  });
});
