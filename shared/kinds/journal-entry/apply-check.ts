// A journal entry's own check at apply (docs/guide/importing-books.md "Chart of accounts"), beside its
// preconditions: a line's account the chart held at staging is a precondition, judged by its version; a line
// whose code the organisation had no account for then (it had no chart) makes the plan stale once the chart
// lacks that code or holds it inactive, since new entries post only to a chart's active codes. Pure.
import { compareIds, type Precondition, type VersionedLedgerAccount } from '../../domain/books.js';
import type { ChangedPrecondition } from '../../domain/preconditions.js';
import type { JournalEntryPlan } from './plan.js';

/** The plan's line codes, each once in byte order, whose account is not among its preconditions. */
export function unheldCodes(
  plan: Pick<JournalEntryPlan, 'entry'>,
  preconditions: readonly Precondition[],
  accountId: (code: string) => string,
): string[] {
  const held = new Set(preconditions.filter((p) => p.collection === 'ledger_accounts').map((p) => p.id));
  return [...new Set(plan.entry.lines.map((l) => l.account))].filter((c) => !held.has(accountId(c))).sort(compareIds);
}

/**
 * The clashes of `codes` (unheldCodes) with the chart as it is now: none without a chart (any code is
 * accepted); else each code it lacks (`actual_version` null) or holds inactive, with `expected_version` 0: the
 * plan saw no account for it.
 */
export function chartClashes(
  codes: readonly string[],
  chart: readonly VersionedLedgerAccount[],
  accountId: (code: string) => string,
): ChangedPrecondition[] {
  if (chart.length === 0) return [];
  const byCode = new Map(chart.map((a) => [a.code, a]));
  return codes.flatMap((code): ChangedPrecondition[] => {
    const account = byCode.get(code);
    if (account?.active) return [];
    return [
      {
        collection: 'ledger_accounts',
        id: account?.id ?? accountId(code),
        expected_version: 0,
        actual_version: account?.version ?? null,
      },
    ];
  });
}
