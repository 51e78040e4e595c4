// What a revert of a statement import checks (docs/design/staged-lifecycle.md
// "Reverts"): the transactions it created are removed (the generic undo of
// its journal keeps full copies in the plan) unless one of them was linked or
// reconciled since (a reconciled one no longer holds what the import wrote).
import type { KindRevertRules } from '../revert/plan.js';
import { statementImportSubjectKey, type StatementImportPlan } from './plan.js';

/** The imported transactions that have a bank link now. */
export interface ImportRevertExtra {
  linked_transaction_ids: string[];
}

export const importRevertRules: KindRevertRules<ImportRevertExtra> = {
  subjectKeys: (subject) => [statementImportSubjectKey((subject.plan as StatementImportPlan).bank_account_id)],
  changed: (_subject, books) =>
    books.extra.linked_transaction_ids.map((id) => ({ collection: 'bank_transactions', id })),
};
