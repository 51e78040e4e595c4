// What a revert of a bank match checks (docs/design/staged-lifecycle.md
// "Reverts"): the links it created are removed (the generic undo of its
// journal) unless one of them, or one of their transactions or entries,
// changed since the apply. Those are a link repair's rules: the links' own
// changes the generic undo finds, their transactions and entries against the
// versions the match read (its preconditions; linking does not write them).
import { repairRevertRules, type RepairRevertExtra } from '../ledger-link-repair/revert.js';
import type { KindRevertRules } from '../revert/plan.js';
import { bankMatchSubjectKey, type BankMatchPlan } from './plan.js';

export const matchRevertRules: KindRevertRules<RepairRevertExtra> = {
  ...repairRevertRules,
  // The match's own key: its account and pairs (the same pairs matched again wait for the revert).
  subjectKeys: (subject) => {
    const plan = subject.plan as BankMatchPlan;
    return [bankMatchSubjectKey({ bank_account_id: plan.bank_account_id, matches: plan.pairs })];
  },
};
