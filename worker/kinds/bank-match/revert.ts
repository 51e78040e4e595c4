// Reverting a bank match (docs/design/staged-lifecycle.md "Reverts"): the
// worker reads what a link repair's revert reads, the versions now of the
// transactions and entries of the links the match created.
import { matchRevertRules } from '../../../shared/kinds/bank-match/revert.js';
import { repairRevert } from '../ledger-link-repair/revert.js';
import { revertHook } from '../revert/hook.js';

export const matchRevert = revertHook({ ...repairRevert, rules: matchRevertRules });
