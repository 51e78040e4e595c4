// The shape of a link-repair plan (docs/reference/http-api.md §8): what the
// planner (plan.ts) builds and the hash (hash.ts) reads,
// in a module of its own so that neither imports the other.
import type { IsoDate } from '../../domain/books.js';

export interface RepairMoveAction {
  kind: 'move';
  bank_transaction_id: string;
  link_id: string;
  from_ledger_entry_id: string;
  to_ledger_entry_id: string;
  amount_minor: number;
}

export interface RepairLinkAction {
  kind: 'link';
  bank_transaction_id: string;
  ledger_entry_id: string;
  amount_minor: number;
}

export interface RepairUnlinkAction {
  kind: 'unlink';
  bank_transaction_id: string;
  link_id: string;
  ledger_entry_id: string;
  amount_minor: number;
}

export type RepairAction = RepairMoveAction | RepairLinkAction | RepairUnlinkAction;

export interface LinkRepairSummary {
  moves: number;
  links: number;
  unlinks: number;
  moved_minor: number;
  linked_minor: number;
  unlinked_minor: number;
  /** Σ walked transactions' amounts the FIFO walk could not allocate. */
  unallocated_transaction_minor: number;
  /** Σ in-set entries' capacity left after frozen links and the walk. */
  uncovered_entry_minor: number;
}

export interface LinkRepairPlan {
  bank_account_id: string;
  counterparty_id: string;
  as_of: IsoDate;
  actions: RepairAction[];
  summary: LinkRepairSummary;
}
