// The `data` of each staging answer, as the worker returns it today (docs/reference/http-api.md
// §13; shapes built in each kind's shared/kinds/<kind>/plan.ts
// and worker/operation/commit-decision.ts). Response ids are plain strings: they
// echo stored records, which the request schemas do not constrain.
import type { StagedStatus } from '../domain/staged-transitions.js';
import { warningSchema } from './envelope.js';
import { planContextSchema } from './plan-context.js';
import { operationAmountSchema, operationCurrencySchema } from './operation-amount.js';
import { approvalStateSchema } from './approval-state.js';

const str = { type: 'string' } as const;
const date = { type: 'string', format: 'date' } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;
const integer = { type: 'integer' } as const;
const count = { type: 'integer', minimum: 0 } as const;
export const planHash = {
  type: 'string',
  pattern: '^[0-9a-f]{64}$',
  description: 'Hex SHA-256 of the RFC 8785 canonical JSON of `plan`.',
} as const;

/** Members a staging answer may leave out: `approval` (an operation staged before approval policies has none). */
const OPTIONAL: readonly string[] = ['approval'];

const object = (
  properties: Record<string, object>,
  required: string[] = Object.keys(properties).filter((k) => !OPTIONAL.includes(k)),
  extra: object = {},
) => ({ type: 'object', additionalProperties: false, required, properties, ...extra });

/** The statuses a staging answer reports: every status of STAGED_STATUSES (shared/domain/staged-transitions.ts) but `applying`. */
const STAGING_ANSWER_STATUSES = [
  'staged',
  'approved',
  'applied',
  'rejected',
  'expired',
  'failed',
  'stale',
] as const satisfies readonly Exclude<StagedStatus, 'applying'>[];

/** The fields every `staged` answer has beside its plan. */
export const stagedFields = {
  outcome: { const: 'staged' },
  staged_operation_id: { type: 'string', pattern: '^stg_' },
  status: {
    enum: [...STAGING_ANSWER_STATUSES],
    description: "The staged operation's status; `staged` (or `approved`) for a pending one.",
  },
  expires_at: timestamp,
  context: planContextSchema,
  amount_minor: operationAmountSchema,
  currency: operationCurrencySchema,
  approval: approvalStateSchema,
} as const;

const unlinkAction = object({
  kind: { const: 'unlink' },
  bank_transaction_id: str,
  link_id: str,
  ledger_entry_id: str,
  amount_minor: integer,
});

// --- ledger reversal ----------------------------------------------------

export const reversalPlanSchema = object(
  {
    ledger_entry_id: str,
    reversal_date: date,
    reason: { anyOf: [str, { type: 'null' }] },
    reversing_entry: object({
      entry_date: date,
      description: str,
      reference: str,
      counterparty_id: str,
      currency: str,
      lines: { type: 'array', items: object({ account: str, debit_minor: integer, credit_minor: integer }) },
      reversal_of: str,
    }),
    actions: { type: 'array', items: unlinkAction, description: 'One unlink per bank link of the entry, by link id.' },
  },
  undefined,
  { title: 'ReversalPlan' },
);

export const reversalResultSchema = object(
  { ...stagedFields, plan: reversalPlanSchema, plan_hash: planHash },
  undefined,
  { title: 'ReversalStageResult' },
);

// --- bank reconciliation ------------------------------------------------

export const reconcilePlanSchema = object(
  {
    bank_account_id: str,
    statement: object({
      end_date: date,
      closing_balance_minor: integer,
      currency: str,
      reference: { anyOf: [str, { type: 'null' }] },
    }),
    opening_balance_minor: integer,
    cleared_total_minor: integer,
    closing_balance_minor: integer,
    transactions: {
      type: 'array',
      description: "By (booking_date, id); each one's links by link id.",
      items: object({
        bank_transaction_id: str,
        booking_date: date,
        amount_minor: integer,
        links: { type: 'array', items: object({ link_id: str, ledger_entry_id: str, amount_minor: integer }) },
      }),
    },
    left_out: object({ count, first_ids: { type: 'array', maxItems: 10, items: str } }),
  },
  undefined,
  { title: 'ReconcilePlan' },
);

export const reconcileResultSchema = object(
  { ...stagedFields, plan: reconcilePlanSchema, plan_hash: planHash },
  undefined,
  { title: 'ReconcileStageResult' },
);

// --- ledger link repair -------------------------------------------------

export const repairActionSchema = {
  title: 'RepairAction',
  oneOf: [
    object({
      kind: { const: 'move' },
      bank_transaction_id: str,
      link_id: str,
      from_ledger_entry_id: str,
      to_ledger_entry_id: str,
      amount_minor: integer,
    }),
    object({ kind: { const: 'link' }, bank_transaction_id: str, ledger_entry_id: str, amount_minor: integer }),
    unlinkAction,
  ],
} as const;

export const repairPlanSchema = object(
  {
    bank_account_id: str,
    counterparty_id: str,
    as_of: date,
    actions: { type: 'array', items: repairActionSchema },
    summary: object({
      moves: count,
      links: count,
      unlinks: count,
      moved_minor: integer,
      linked_minor: integer,
      unlinked_minor: integer,
      unallocated_transaction_minor: integer,
      uncovered_entry_minor: integer,
    }),
  },
  undefined,
  { title: 'RepairPlan' },
);

export const REPAIR_BLOCKER_CODES = [
  'currency_mismatch',
  'frozen_link_to_reversed_entry',
  'frozen_link_to_other_counterparty',
  'frozen_over_allocation',
] as const;

const blockers = {
  type: 'array',
  items: object({ code: { enum: [...REPAIR_BLOCKER_CODES] }, ids: { type: 'array', items: str } }),
} as const;
const noBlockers = { type: 'array', maxItems: 0 } as const;

export const repairStagedResultSchema = object(
  { ...stagedFields, blockers: noBlockers, plan: repairPlanSchema, plan_hash: planHash },
  undefined,
  { title: 'RepairStagedResult' },
);

export const repairResultSchema = {
  title: 'RepairStageResult',
  oneOf: [
    repairStagedResultSchema,
    object(
      {
        outcome: { const: 'noop' },
        blockers: noBlockers,
        context: planContextSchema,
        plan: repairPlanSchema,
        plan_hash: planHash,
      },
      undefined,
      { title: 'RepairNoopResult' },
    ),
    object(
      {
        outcome: { const: 'blocked' },
        blockers: { ...blockers, minItems: 1 },
        plan: { type: 'null' },
        plan_hash: { type: 'null' },
      },
      undefined,
      { title: 'RepairBlockedResult' },
    ),
  ],
} as const;

// --- a dry run (docs/reference/http-api.md §6.6) ---------------------

/** A dry run's `data`: the decision a staging would reach, with its plan, and nothing stored. */
export function dryRunResultSchema(title: string, plan: object, extra: Record<string, object> = {}): object {
  const properties = {
    dry_run: { const: true },
    outcome: {
      enum: ['staged', 'noop', 'blocked'],
      description:
        'What a staging now would answer: `staged` (a plan to stage), `noop` (nothing to change), `blocked`.',
    },
    ...extra,
    context: { ...planContextSchema, description: `${planContextSchema.description} Only with a plan.` },
    plan: { anyOf: [plan, { type: 'null' }] },
    plan_hash: {
      anyOf: [planHash, { type: 'null' }],
      description: 'With unchanged books, the `plan_hash` the real staging will have.',
    },
    summary: {
      anyOf: [{ type: 'object' }, { type: 'null' }],
      description: 'The summary the staged operation would show (null without a plan).',
    },
    amount_minor: {
      anyOf: [operationAmountSchema, { type: 'null' }],
      description: 'The amount the staged operation would have (null without a plan).',
    },
    currency: { anyOf: [operationCurrencySchema, { type: 'null' }] },
    warnings: {
      type: 'array',
      items: warningSchema,
      description:
        "The warnings of the answer, the same as the envelope's: those of the plan, and `pending_operation` when pending operations hold its keys.",
    },
  };
  return object(
    properties,
    Object.keys(properties).filter((k) => k !== 'context'),
    { title },
  );
}

export const reversalDryRunSchema = dryRunResultSchema('ReversalDryRunResult', reversalPlanSchema);
export const reconcileDryRunSchema = dryRunResultSchema('ReconcileDryRunResult', reconcilePlanSchema);
export const repairDryRunSchema = dryRunResultSchema('RepairDryRunResult', repairPlanSchema, { blockers });

/** A staging call's 200 `data`: its own result, or (with `?dry_run=true`) a dry run's. */
export const orDryRun = (result: object, dryRun: object): object => ({ oneOf: [result, dryRun] });

// --- a call that outlived its wait (202) --------------------------------

export const jobIdSchema = {
  type: 'string',
  maxLength: 68,
  pattern: '^job_[A-Za-z0-9-]{1,64}$',
  description: 'A job id as answered in a 202 (`data.job_id`).',
} as const;

export const pendingResultSchema = object({ outcome: { const: 'pending' }, job_id: jobIdSchema }, undefined, {
  title: 'PendingResult',
});

// --- inbox duplicate resolution -------------------------------------------

export const inboxResolvePlanSchema = object(
  {
    group_id: str,
    member_ids: { type: 'array', items: str, description: "The group's documents, by id." },
    resolution: { enum: ['archive_duplicates', 'not_duplicates'] },
    keep_document_id: { anyOf: [str, { type: 'null' }] },
    archive_document_ids: { type: 'array', items: str, description: 'By id; [] for `not_duplicates`.' },
    note: { anyOf: [str, { type: 'null' }] },
  },
  undefined,
  { title: 'InboxResolvePlan' },
);

export const inboxResolveResultSchema = object(
  { ...stagedFields, plan: inboxResolvePlanSchema, plan_hash: planHash },
  undefined,
  { title: 'InboxResolveStageResult' },
);

export const inboxResolveDryRunSchema = dryRunResultSchema('InboxResolveDryRunResult', inboxResolvePlanSchema);
// --- statement import (docs/guide/statement-import.md) -------------------

const nullableStr = { anyOf: [str, { type: 'null' }] } as const;
const nullableDate = { anyOf: [date, { type: 'null' }] } as const;
const nullableInteger = { anyOf: [integer, { type: 'null' }] } as const;

/** A new transaction of an import's plan; `version` only for one that returns after a revert. */
const newTransactionFields = {
  id: str,
  booking_date: date,
  value_date: nullableDate,
  amount_minor: integer,
  currency: str,
  bank_reference: nullableStr,
  counterparty_name: nullableStr,
  counterparty_iban: nullableStr,
  counterparty_id: nullableStr,
  remittance_info: nullableStr,
  details: {
    type: 'array',
    items: object({
      amount_minor: nullableInteger,
      counterparty_name: nullableStr,
      remittance_info: nullableStr,
      end_to_end_id: nullableStr,
    }),
  },
  version: {
    ...integer,
    description:
      'Only for a transaction returning under an id a revert removed: the version it is inserted at, above every version it had.',
  },
};

export const statementImportPlanSchema = object(
  {
    bank_account_id: str,
    format: { enum: ['camt053', 'ofx', 'mt940', 'csv'] },
    file_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    statements: {
      type: 'array',
      items: object({
        reference: str,
        start_date: nullableDate,
        end_date: nullableDate,
        opening_balance_minor: nullableInteger,
        closing_balance_minor: nullableInteger,
        currency: str,
      }),
    },
    new_transactions: {
      type: 'array',
      description:
        'In file order; each id is deterministic (`bt_imp_…`): the same file on the same books gives the same plan.',
      items: object(
        newTransactionFields,
        Object.keys(newTransactionFields).filter((k) => k !== 'version'),
      ),
    },
    skipped: {
      type: 'array',
      items: object({
        booking_date: date,
        amount_minor: integer,
        bank_reference: nullableStr,
        reason: { enum: ['same_bank_reference', 'same_fingerprint', 'period_locked'] },
        existing_transaction_id: nullableStr,
      }),
    },
  },
  undefined,
  { title: 'StatementImportPlan' },
);

export const statementImportResultSchema = {
  title: 'StatementImportStageResult',
  oneOf: [
    object({ ...stagedFields, plan: statementImportPlanSchema, plan_hash: planHash }, undefined, {
      title: 'StatementImportStagedResult',
    }),
    object({ outcome: { const: 'noop' }, plan: statementImportPlanSchema, plan_hash: planHash }, undefined, {
      title: 'StatementImportNoopResult',
    }),
  ],
} as const;

export const statementImportDryRunSchema = dryRunResultSchema('StatementImportDryRunResult', statementImportPlanSchema);

// --- period close (docs/design/staged-lifecycle.md "Closed periods") -------

export const periodClosePlanSchema = object(
  {
    through: { ...date, description: 'The new lock date: every day on or before it is closed.' },
    lock_date_before: { anyOf: [date, { type: 'null' }], description: 'The lock date when the close was staged.' },
    note: { anyOf: [str, { type: 'null' }] },
    entries: { ...count, description: 'Ledger entries dated on or before `through` when staged.' },
    bank_transactions: { ...count, description: 'Bank transactions booked on or before `through` when staged.' },
  },
  undefined,
  { title: 'PeriodClosePlan' },
);

export const periodCloseResultSchema = object(
  { ...stagedFields, plan: periodClosePlanSchema, plan_hash: planHash },
  undefined,
  { title: 'PeriodCloseStageResult' },
);

export const periodCloseDryRunSchema = dryRunResultSchema('PeriodCloseDryRunResult', periodClosePlanSchema);
// --- a kind's own result shapes (shared/kinds/<kind>/schema.ts) -----------

/** The `staged` answer of a kind whose plan has this schema. */
export const stagedResultSchema = (title: string, plan: object): object =>
  object({ ...stagedFields, plan, plan_hash: planHash }, undefined, { title });
