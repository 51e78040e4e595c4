// Reverting a duplicate resolution (docs/design/staged-lifecycle.md "Reverts"):
// nothing to read beyond the records its journal wrote.
import { inboxResolveRevertRules } from '../../../shared/kinds/inbox-duplicates-resolve/revert.js';
import { revertHook } from '../revert/hook.js';

export const inboxResolveRevert = revertHook({ rules: inboxResolveRevertRules });
