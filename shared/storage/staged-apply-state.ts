// What a staged operation stores about its apply (docs/design/staged-lifecycle.md):
// the journal written once when apply starts, its progress, and the lease of
// the job running it; then the result (its wire shape: shared/contract/staged-operation.ts).
import type { JournalWrite } from '../domain/apply-journal.js';
import type { ApplyResult } from '../contract/staged-operation.js';

export type { ApplyResult };

export interface ApplyJournalState {
  /**
   * Empty as stored when `writes_from_plan` (the writes are then journalFromPlan(kind, plan), shared/kinds/journals.ts)
   * or `journal_id` (they are in `journal_parts` parts, shared/storage/apply-journal-parts.ts); an operation stored
   * before the parts holds them here. readApplyJournal always answers them.
   */
  writes: JournalWrite[];
  writes_from_plan?: true;
  /** The journal's parts: `<journal_id>#0` … `<journal_id>#<journal_parts - 1>` in `apply_journal_parts`. */
  journal_id?: string;
  journal_parts?: number;
  /** A link repair: the link each moved or new amount goes to (planJournalWithLinks), recorded in the result once applied. */
  links?: Array<{ action_index: number; link_id: string }>;
  /** Writes 0..done-1 are known to be made (a retried job re-checks from here). */
  done: number;
  /** `undo`: a write met a conflicting change; the writes made are being undone, then the operation fails. */
  phase: 'forward' | 'undo';
  /** Writes done-1..done-undone are known to be undone. */
  undone: number;
  /** Why the journal is being undone (phase `undo`): the write that met a conflicting change, or that the store refused (`refused`: its reason). */
  conflict: { collection: string; id: string; refused?: string } | null;
  /** The job running the journal, and until when it holds it without a heartbeat. */
  owner: string;
  lease_until: string;
  started_at: string;
  started_by: string;
  request_id: string;
}
