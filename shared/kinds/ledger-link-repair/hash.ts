// The link repair plan's plan_hash: planHash(plan) (SHA-256 of its RFC 8785
// canonical JSON), written for the plan's known shape.
import type { LinkRepairPlan } from './plan-shape.js';
import { CanonicalByteHasher, canonicalBytes, canonicalJson } from '../../domain/plan-hash.js';

// The fixed text between an action's values, keys in code-unit order, encoded once.
const FIRST_ACTION = canonicalBytes('{"amount_minor":');
// why the closing brace with the next action's start: one copy fewer per action.
const NEXT_ACTION = canonicalBytes('},{"amount_minor":');
const TRANSACTION = canonicalBytes(',"bank_transaction_id":');
const MOVE_FROM = canonicalBytes(',"from_ledger_entry_id":');
const MOVE_LINK = canonicalBytes(',"kind":"move","link_id":');
const MOVE_TO = canonicalBytes(',"to_ledger_entry_id":');
const LINK_ENTRY = canonicalBytes(',"kind":"link","ledger_entry_id":');
const UNLINK_ENTRY = canonicalBytes(',"kind":"unlink","ledger_entry_id":');
const UNLINK_LINK = canonicalBytes(',"link_id":');

/**
 * planHash(plan), written for this plan's known shape: each action's
 * canonical text straight from its fields, keys in code-unit order, written
 * as bytes into the hash (CanonicalByteHasher), the fixed text between the
 * values as bytes encoded once. why: the generic path built
 * and hashed ~30 M characters for a 100k transaction plan;
 * test/unit/repair-plan-hash.test.ts holds the two equal.
 */
export function repairPlanHash(plan: LinkRepairPlan): string {
  const out = new CanonicalByteHasher();
  out.write('{"actions":[');
  const actions = plan.actions;
  writeActions(out, actions);
  out.write(actions.length > 0 ? '}],"as_of":' : '],"as_of":');
  out.string(plan.as_of);
  out.write(',"bank_account_id":');
  out.string(plan.bank_account_id);
  out.write(',"counterparty_id":');
  out.string(plan.counterparty_id);
  out.write(`,"summary":${canonicalJson(plan.summary)}}`);
  return out.digest();
}

/**
 * Every action's text but the last one's closing brace. why a function of
 * its own: it runs once per plan, so V8 compiles its loop while it runs, and
 * that code went on into the plan's tail, which it had never run, and was
 * thrown away there on every plan (plan.ts, step 0).
 */
function writeActions(out: CanonicalByteHasher, actions: LinkRepairPlan['actions']): void {
  for (let i = 0; i < actions.length; i += 1) {
    const a = actions[i]!;
    out.bytes(i === 0 ? FIRST_ACTION : NEXT_ACTION);
    out.number(a.amount_minor);
    out.bytes(TRANSACTION);
    out.string(a.bank_transaction_id);
    switch (a.kind) {
      case 'move':
        out.bytes(MOVE_FROM);
        out.string(a.from_ledger_entry_id);
        out.bytes(MOVE_LINK);
        out.string(a.link_id);
        out.bytes(MOVE_TO);
        out.string(a.to_ledger_entry_id);
        break;
      case 'link':
        out.bytes(LINK_ENTRY);
        out.string(a.ledger_entry_id);
        break;
      case 'unlink':
        out.bytes(UNLINK_ENTRY);
        out.string(a.ledger_entry_id);
        out.bytes(UNLINK_LINK);
        out.string(a.link_id);
        break;
    }
  }
}
