// The schema of `data.context` (docs/design/staged-lifecycle.md "Context"; the
// types: shared/domain/plan-context.ts): the records a plan names, read at
// staging time, outside the plan and its plan_hash.

const str = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const date = { type: 'string', format: 'date' } as const;
const object = <P extends Record<string, object>>(
  properties: P,
  required: readonly string[] = Object.keys(properties),
) => ({ type: 'object', additionalProperties: false, required, properties }) as const;

export const extractedSchema = object(
  {
    vendor_name: str,
    vendor_tax_id: str,
    invoice_number: str,
    invoice_date: date,
    total_minor: integer,
    currency: str,
  },
  [],
);

export const documentContextSchema = object({
  id: str,
  received_at: str,
  file: object({ name: str, mime: str, size: integer }),
  extracted: extractedSchema,
});

export const planContextSchema = {
  title: 'PlanContext',
  description:
    'The records the plan names, as they stood at staging time; outside the plan and its plan_hash. Each list sorted by id; a kind leaves out what it does not name.',
  ...object(
    {
      bank_account: object({ id: str, name: str, currency: str }),
      ledger_entries: {
        type: 'array',
        items: object({
          id: str,
          entry_date: date,
          reference: str,
          description: str,
          counterparty_id: str,
          currency: str,
          open_amount_minor: { ...integer, description: 'Σ(debit − credit) on the settlement accounts.' },
        }),
      },
      bank_transactions: {
        type: 'array',
        items: object({
          id: str,
          booking_date: date,
          amount_minor: integer,
          currency: str,
          counterparty_name: str,
          remittance_info: str,
        }),
      },
      inbox_documents: { type: 'array', items: documentContextSchema },
      reverted: {
        ...object({ staged_operation_id: str, kind: str, amount_minor: integer, currency: str }),
        description: "A revert: the operation it reverts, its kind and its amount (the revert's own).",
      },
      repair_actions: {
        type: 'array',
        description: "A link repair: why FIFO chose each action's target, in action order.",
        items: object({
          action_index: integer,
          ledger_entry_id: str,
          fifo_position: {
            anyOf: [integer, { type: 'null' }],
            description:
              "1-based among the counterparty's open entries of the same direction, oldest first; null when not in that queue.",
          },
          fifo_queue_length: integer,
          open_before_minor: {
            ...integer,
            description: 'What the entry leaves open beyond its links before this action (actions in plan order).',
          },
          open_after_minor: integer,
        }),
      },
    },
    [],
  ),
} as const;
