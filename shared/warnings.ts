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
    when: 'The very same plan is already pending for the same scope; its operation is returned and nothing new is staged.',
    message: (d) => `The same plan is already pending as ${String(d.staged_operation_id)}; no new operation was created.`,
  },
  left_out_unreconciled: {
    when: 'A reconciliation leaves out unreconciled transactions of the account booked on or before the statement end.',
    message: (d) => {
      const count = Number(d.count);
      const noun = count === 1 ? 'transaction' : 'transactions';
      return `${count} unreconciled ${noun} of bank account ${String(d.bank_account_id)} booked on or before ${String(d.end_date)} ${count === 1 ? 'is' : 'are'} not in this statement.`;
    },
  },
} satisfies Record<string, WarningSpec>;

export type WarningCode = keyof typeof WARNING_TABLE;

/** A warning with the table's message; `details` are given to the caller as they are. */
export function warning(code: WarningCode, details: Details, messageDetails: Details = details): Warning {
  return { code, message: WARNING_TABLE[code].message(messageDetails), details };
}
