// The journal entry kind as the wire knows it (docs/design/architecture.md "Kinds"): its staging
// call's route entry, its refusals, its plan's summary and amount, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import { orDryRun } from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';
import { sumAbsMinor } from '../operation-amount.js';
import type { JournalEntryPlan } from './plan.js';
import { journalEntryDryRunSchema, journalEntryResultSchema, journalEntryStageRequestSchema } from './schema.js';

/** Its refusals, in the order they are checked (docs/reference/http-api.md "Journal entry stage"). */
const JOURNAL_ENTRY_ERRORS: ErrorCode[] = [
  'invalid_lines',
  'amount_out_of_range',
  'unbalanced_entry',
  'unknown_account',
  'currency_mismatch',
  'period_locked',
  'posts_to_bank_account',
  'not_found',
  'transaction_fully_linked',
  'settlement_line_mismatch',
  'document_not_open',
  'entry_exists',
];

export const journalEntry: KindModule<'journal_entry'> = {
  kind: 'journal_entry',
  route: stagingRoute({
    operation: 'journal_entry.stage',
    summary: 'Stage a journal entry',
    description:
      'Plans one new ledger entry (its id derived from the request), optionally booking a bank transaction (linked for what it has left unlinked) and attaching an open inbox document, and stages it for review. A pending operation holding the entry, the transaction or the document answers 409 `pending_operation`, the very same entry included.',
    scope: 'ledger:stage',
    body: { schema: journalEntryStageRequestSchema, required: true },
    answered: {
      description: 'Only a dry run answers 200 (the very same entry pending is a conflict, 409).',
      data: orDryRun(journalEntryResultSchema, journalEntryDryRunSchema),
    },
    created: {
      data: journalEntryResultSchema,
      warnings:
        'It may warn `possible_duplicate_entry`: posted entries with the same counterparty, reference and settlement amount.',
    },
    refusals: JOURNAL_ENTRY_ERRORS,
  }),
  refusals: JOURNAL_ENTRY_ERRORS,
  summary: (plan) => {
    const p = plan as JournalEntryPlan;
    return {
      ledger_entry_id: p.ledger_entry_id,
      lines: p.entry.lines.length,
      debit_total_minor: p.debit_total_minor,
      bank_transaction_id: p.bank_link?.bank_transaction_id ?? null,
      linked_minor: p.bank_link?.amount_minor ?? 0,
      document_id: p.document_id,
    };
  },
  // Σ debits of the entry, in its currency.
  amount: (plan) => {
    const p = plan as JournalEntryPlan;
    return { amount_minor: sumAbsMinor(p.entry.lines.map((l) => l.debit_minor)), currency: p.entry.currency };
  },
  cli: { label: 'journal entry' },
  mcp: {
    name: 'stage_journal_entry',
    title: 'Stage a journal entry',
    description:
      'Plans one new ledger entry (entry_date, description, reference, counterparty_id, currency, lines of account, debit_minor, credit_minor) and stages it for review. ' +
      'With bank_transaction_id it books that transaction: the entry must settle what the transaction has left unlinked on a settlement account (money out: a credit; money in: a debit), and apply links them. ' +
      'With document_id it attaches that open inbox document (apply marks it booked). The entry id is derived from the request, so the same booking is never applied twice: the very same entry already pending is refused with pending_operation, not answered as already_staged. ' +
      `${NOTHING_CHANGES} ${OUTCOMES} Unbalanced lines, unknown accounts, a locked period, a line on a bank account's ledger account, or a settlement line that does not match are refused with their codes. ${KEY}`,
  },
};
