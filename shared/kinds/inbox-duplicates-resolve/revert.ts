// What a revert of a duplicate resolution checks (docs/design/staged-lifecycle.md
// "Reverts"): only that the documents it archived (or the dismissal it
// recorded) are still as it left them, which the generic undo of its journal
// checks. The documents go back to the status they had, the dismissal is
// withdrawn and the group shows in the overview again.
import type { KindRevertRules } from '../revert/plan.js';
import { inboxGroupSubjectKey, type InboxResolvePlan } from './plan.js';

export const inboxResolveRevertRules: KindRevertRules = {
  subjectKeys: (subject) => [inboxGroupSubjectKey((subject.plan as InboxResolvePlan).group_id)],
};
