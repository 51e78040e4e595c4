// repairPlanHash writes a repair plan's canonical JSON itself and streams it
// into SHA-256; it must give exactly planHash(plan) (the generic path, held
// to the canonicalize package in plan-hash.test.ts) for any plan.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { canonicalJson, CanonicalHasher, canonicalString, planHash } from '../../shared/domain/plan-hash.js';
import {
  planLinkRepair,
  repairPlanHash,
  type LinkRepairPlan,
  type RepairAction,
} from '../../shared/kinds/ledger-link-repair/plan.js';
import { bigRepairInput } from '../../bench/lib/repair-books.js';

/** Deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const AWKWARD = ['"', '\\', '\n', '\u0001', '\u001f', 'é', '€', '😀', '\ud800', '\udfff', '/', ' ', '\u2028', '\u007f'];

function randomId(next: () => number): string {
  const length = Math.floor(next() * 12);
  let id = '';
  for (let i = 0; i < length; i += 1) {
    id +=
      next() < 0.2
        ? AWKWARD[Math.floor(next() * AWKWARD.length)]!
        : String.fromCharCode(0x21 + Math.floor(next() * 0x5d));
  }
  return id;
}

function randomAmount(next: () => number): number {
  const roll = next();
  if (roll < 0.1) return Number.MAX_SAFE_INTEGER;
  if (roll < 0.15) return 1e21 + Math.floor(next() * 1e6) * 1e6;
  if (roll < 0.2) return 0.5 + Math.floor(next() * 100);
  return 1 + Math.floor(next() * 1_000_000);
}

function randomPlan(seed: number): LinkRepairPlan {
  const next = prng(seed);
  const actions: RepairAction[] = [];
  const count = Math.floor(next() * 40);
  let transaction = randomId(next);
  for (let i = 0; i < count; i += 1) {
    if (next() < 0.4) transaction = randomId(next);
    const amount_minor = randomAmount(next);
    const kind = next();
    if (kind < 0.34) {
      actions.push({
        kind: 'move',
        bank_transaction_id: transaction,
        link_id: randomId(next),
        from_ledger_entry_id: randomId(next),
        to_ledger_entry_id: randomId(next),
        amount_minor,
      });
    } else if (kind < 0.67) {
      actions.push({ kind: 'link', bank_transaction_id: transaction, ledger_entry_id: randomId(next), amount_minor });
    } else {
      actions.push({
        kind: 'unlink',
        bank_transaction_id: transaction,
        link_id: randomId(next),
        ledger_entry_id: randomId(next),
        amount_minor,
      });
    }
  }
  return {
    bank_account_id: randomId(next),
    counterparty_id: randomId(next),
    as_of: randomId(next),
    actions,
    summary: {
      moves: count,
      links: 0,
      unlinks: Math.floor(next() * 5),
      moved_minor: randomAmount(next),
      linked_minor: 0,
      unlinked_minor: randomAmount(next),
      unallocated_transaction_minor: randomAmount(next),
      uncovered_entry_minor: 0,
    },
  };
}

describe('repair plan hash: streamed canonical form', () => {
  it('equals planHash on 500 random plans with awkward ids and amounts', () => {
    for (let seed = 1; seed <= 500; seed += 1) {
      const plan = randomPlan(seed);
      expect(repairPlanHash(plan), `seed ${seed}`).to.equal(planHash(plan));
    }
  });

  it('equals planHash on the plan of a 3,000 transaction scope, and planLinkRepair uses it', () => {
    const result = planLinkRepair(bigRepairInput('org_hash', 3000));
    expect(result.plan).to.not.equal(null);
    expect(result.plan!.actions.length).to.be.greaterThan(1000);
    expect(result.plan_hash).to.equal(planHash(result.plan));
    expect(repairPlanHash(result.plan!)).to.equal(planHash(result.plan));
  });

  it('hashes the same text in chunks as in one piece, across the chunk size', () => {
    const piece = `${'a'.repeat(70_000)}é😀`;
    const hasher = new CanonicalHasher();
    hasher.write('[');
    hasher.write(canonicalString(piece));
    hasher.write(',1]');
    expect(hasher.digest()).to.equal(
      createHash('sha256')
        .update(canonicalJson([piece, 1]), 'utf8')
        .digest('hex'),
    );
  });

  it('quotes strings exactly as canonical JSON does', () => {
    for (const text of ['', 'plain_id-1', ...AWKWARD, 'a"b', '😀x', 'x\ud800y']) {
      expect(canonicalString(text)).to.equal(canonicalJson(text));
    }
  });
});
