// The link repair plan's plan_hash: planHash(plan) (SHA-256 of its RFC 8785
// canonical JSON), written for the plan's known shape.
import type { LinkRepairPlan } from './link-repair-plan.js';
import { CanonicalByteHasher, canonicalJson } from './plan-hash.js';

/**
 * planHash(plan), written for this plan's known shape: each action's
 * canonical text straight from its fields, keys in code-unit order, written
 * as bytes into the hash (CanonicalByteHasher). why: the generic path built
 * and hashed ~30 M characters for a 100k transaction plan;
 * test/unit/repair-plan-hash.test.ts holds the two equal.
 */
export function repairPlanHash(plan: LinkRepairPlan): string {
  const out = new CanonicalByteHasher();
  out.write('{"actions":[');
  const actions = plan.actions;
  for (let i = 0; i < actions.length; i += 1) {
    const a = actions[i]!;
    out.write(i === 0 ? '{"amount_minor":' : ',{"amount_minor":');
    out.number(a.amount_minor);
    out.write(',"bank_transaction_id":');
    out.string(a.bank_transaction_id);
    switch (a.kind) {
      case 'move':
        out.write(',"from_ledger_entry_id":');
        out.string(a.from_ledger_entry_id);
        out.write(',"kind":"move","link_id":');
        out.string(a.link_id);
        out.write(',"to_ledger_entry_id":');
        out.string(a.to_ledger_entry_id);
        break;
      case 'link':
        out.write(',"kind":"link","ledger_entry_id":');
        out.string(a.ledger_entry_id);
        break;
      case 'unlink':
        out.write(',"kind":"unlink","ledger_entry_id":');
        out.string(a.ledger_entry_id);
        out.write(',"link_id":');
        out.string(a.link_id);
        break;
    }
    out.write('}');
  }
  out.write('],"as_of":');
  out.string(plan.as_of);
  out.write(',"bank_account_id":');
  out.string(plan.bank_account_id);
  out.write(',"counterparty_id":');
  out.string(plan.counterparty_id);
  out.write(`,"summary":${canonicalJson(plan.summary)}}`);
  return out.digest();
}
