// The one table of warning codes, kept like the error table (shared/errors.ts):
// a warning is a success that the caller should read before acting on it.
// Codes are part of the contract: never rename one, add new ones instead.

export interface Warning {
  code: WarningCode;
  message: string;
  details?: Record<string, unknown>;
}

type Details = Record<string, unknown>;

interface WarningSpec {
  /** When the warning is given, for the docs. */
  when: string;
  message: (details: Details) => string;
}

export const WARNING_TABLE = {
  already_staged: {
    when: 'The very same plan is already pending for the same subject; its operation is returned and nothing new is staged.',
    message: (d) =>
      `The same plan is already pending as ${String(d.staged_operation_id)}; no new operation was created.`,
  },
  left_out_unreconciled: {
    when: 'A reconciliation leaves out unreconciled transactions of the account booked on or before the statement end.',
    message: (d) => {
      const count = Number(d.count);
      const noun = count === 1 ? 'transaction' : 'transactions';
      return `${count} unreconciled ${noun} of bank account ${String(d.bank_account_id)} booked on or before ${String(d.end_date)} ${count === 1 ? 'is' : 'are'} not in this statement.`;
    },
  },
  pending_entries_left_out: {
    when: 'A statement import leaves out entries the bank has not booked yet (CAMT `Sts` PDNG, OFX pending transactions).',
    message: (d) =>
      `${String(d.count)} pending ${Number(d.count) === 1 ? 'entry was' : 'entries were'} left out; they are imported once booked.`,
  },
  foreign_currency_entries: {
    when: "A statement import leaves out single entries in a currency other than the account's; they are listed.",
    message: (d) =>
      `${String((d.entries as unknown[] | undefined)?.length ?? 0)} entries in another currency were left out.`,
  },
  statement_out_of_balance: {
    when: "A statement's opening balance plus its booked entries differs from its closing balance; the import is staged for the reviewer to judge.",
    message: (d) =>
      `Opening balance plus entries differs from the closing balance in ${String((d.statements as unknown[] | undefined)?.length ?? 0)} statement(s); see details.`,
  },
  opening_balance_differs: {
    when: "The account's balance before the statement's first day differs from the statement's opening balance.",
    message: (d) =>
      `The account's balance before ${String(d.date)} is ${String(d.account_balance_minor)}, the statement opens with ${String(d.statement_opening_balance_minor)}.`,
  },
  other_account_statements_left_out: {
    when: 'A statement file holds statements of other accounts too; they are left out and listed.',
    message: (d) =>
      `${String((d.statements as unknown[] | undefined)?.length ?? 0)} statement(s) of other accounts were left out.`,
  },
  already_applied: {
    when: 'Apply of an operation that an earlier apply already applied: the operation is answered as it is, and nothing is written.',
    message: (d) => `${String(d.staged_operation_id)} was already applied; nothing was written.`,
  },
  pending_operation: {
    when: 'A dry run met pending operations holding its keys: a real staging now would answer 409 `pending_operation` (or `already_staged` for the very same plan); the plan is still computed.',
    message: (d) =>
      `Pending operation(s) ${((d.staged_operation_ids as unknown[] | undefined) ?? []).map(String).join(', ')} hold what this plan would lock; staging now would meet them.`,
  },
  possible_duplicate_entry: {
    when: 'A journal entry staging found posted entries with the same counterparty, reference and settlement amount; they are listed.',
    message: (d) =>
      `Posted entries with the same counterparty, reference and settlement amount: ${((d.ledger_entry_ids as unknown[] | undefined) ?? []).map(String).join(', ')}.`,
  },
} satisfies Record<string, WarningSpec>;

export type WarningCode = keyof typeof WARNING_TABLE;

/** A warning with the table's message; `details` are given to the caller as they are. */
export function warning(code: WarningCode, details: Details, messageDetails: Details = details): Warning {
  return { code, message: WARNING_TABLE[code].message(messageDetails), details };
}
