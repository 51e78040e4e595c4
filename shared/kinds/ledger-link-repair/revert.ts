// What a revert of a link repair checks (docs/design/staged-lifecycle.md
// "Reverts"): beside the links it wrote (the generic undo of its journal puts
// each back, target and amount), the transactions and entries of those links
// must not have changed since the apply: their versions now against those the
// repair read (apply checked them, and the repair does not write them).
import { preconditionKey } from '../../domain/preconditions.js';
import { recordKey, type KindRevertRules, type RevertBooks, type RevertSubject } from '../revert/plan.js';
import type { LinkRepairPlan } from './plan-shape.js';
import { repairSubjectKey } from './plan.js';

/** The versions now of the transactions and entries of the links the repair wrote (null: gone), by `collection/id`. */
export interface RepairRevertExtra {
  versions: Record<string, number | null>;
}

/** The transactions and entries of the links a repair's journal wrote. */
export function repairRevertReads(
  subject: Pick<RevertSubject, 'writes'>,
  records: RevertBooks['records'],
): {
  transaction_ids: string[];
  entry_ids: string[];
} {
  const transactions = new Set<string>();
  const entries = new Set<string>();
  for (const w of subject.writes) {
    if (w.collection !== 'bank_links') continue;
    const fields = w.action === 'update' ? (records.get(recordKey(w.collection, w.id)) ?? {}) : w.doc;
    if (typeof fields.bank_transaction_id === 'string') transactions.add(fields.bank_transaction_id);
    if (typeof fields.ledger_entry_id === 'string') entries.add(fields.ledger_entry_id);
  }
  return { transaction_ids: [...transactions], entry_ids: [...entries] };
}

export const repairRevertRules: KindRevertRules<RepairRevertExtra> = {
  subjectKeys: (subject) => {
    const plan = subject.plan as LinkRepairPlan;
    return [repairSubjectKey(plan.bank_account_id, plan.counterparty_id)];
  },
  changed: (subject, books) =>
    subject.preconditions
      .filter((p) => p.collection === 'bank_transactions' || p.collection === 'ledger_entries')
      .filter((p) => {
        const key = preconditionKey(p.collection, p.id);
        return key in books.extra.versions && books.extra.versions[key] !== p.version;
      })
      .map((p) => ({ collection: p.collection, id: p.id })),
};
