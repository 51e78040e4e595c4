// Reverting a statement import (docs/design/staged-lifecycle.md "Reverts"): the
// worker reads which of the imported transactions have a bank link now.
import { compareIds } from '../../../shared/domain/books.js';
import { importRevertRules, type ImportRevertExtra } from '../../../shared/kinds/statement-import/revert.js';
import { findLinks } from '../../../shared/storage/books-read.js';
import { revertHook } from '../revert/hook.js';

export const importRevert = revertHook<ImportRevertExtra>({
  rules: importRevertRules,
  load: async (ctx, subject) => {
    const ids = subject.writes.filter((w) => w.collection === 'bank_transactions').map((w) => w.id);
    const links = ids.length === 0 ? [] : await findLinks(ctx.db, ctx.data.org_id, 'bank_transaction_id', ids);
    return { linked_transaction_ids: [...new Set(links.map((l) => l.bank_transaction_id))].sort(compareIds) };
  },
});
