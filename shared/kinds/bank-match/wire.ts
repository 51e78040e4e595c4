// The bank match kind as the wire knows it (docs/design/architecture.md "Kinds"):
// its staging call's route entry, its plan's summary, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import { duplicatePairInBody, type BankMatchPlan } from './plan.js';
import { bankMatchPlanSchema, bankMatchStageRequestSchema } from './schema.js';
import { dryRunResultSchema, orDryRun, stagedResultSchema } from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';
import { sumAbsMinor } from '../operation-amount.js';

// In the order they are checked (docs/reference/http-api.md "Bank matches"); pending_operation comes with every staging call.
const MATCH_ERRORS: ErrorCode[] = [
  'duplicate_pair',
  'not_found',
  'transaction_not_on_account',
  'currency_mismatch',
  'entry_is_reversal',
  'direction_mismatch',
  'over_allocated_transaction',
  'over_allocated_entry',
  'already_linked',
];

const resultSchema = stagedResultSchema('BankMatchStageResult', bankMatchPlanSchema);
const dryRunSchema = dryRunResultSchema('BankMatchDryRunResult', bankMatchPlanSchema);

export const bankMatch: KindModule<'bank_match'> = {
  kind: 'bank_match',
  route: stagingRoute({
    operation: 'bank_match.stage',
    summary: 'Stage bank matches',
    description:
      "Links bank transactions of one account to ledger entries, pair by pair with each link's amount (1:1, 1:N, N:1, up to 500 pairs), and stages the links for review. Nothing is linked until it is approved and applied.",
    scope: 'bank:stage',
    body: { schema: bankMatchStageRequestSchema, required: true },
    answered: {
      description:
        'The very same plan was already pending for the same pairs: that operation, with the warning `already_staged`.',
      data: orDryRun(resultSchema, dryRunSchema),
    },
    created: { data: resultSchema },
    refusals: MATCH_ERRORS,
    // The same pair twice is refused before the schema's limit of 500 pairs (docs/reference/http-api.md §8.1).
    bodyRefusal: (body) => {
      const details = duplicatePairInBody(body);
      return details ? { code: 'duplicate_pair', details } : null;
    },
  }),
  refusals: MATCH_ERRORS,
  summary: (plan) => {
    const p = plan as BankMatchPlan;
    return {
      pairs: p.pairs.length,
      transactions: p.transactions.length,
      entries: p.entries.length,
      matched_minor: p.total_minor,
    };
  },
  // Σ of the pairs' amounts, in the account's currency.
  amount: (plan) => {
    const p = plan as BankMatchPlan;
    return { amount_minor: sumAbsMinor(p.pairs.map((m) => m.amount_minor)), currency: p.currency };
  },
  cli: { label: 'bank match' },
  mcp: {
    name: 'stage_bank_match',
    title: 'Stage bank matches',
    description:
      'Links bank transactions of one bank account (bank_account_id) to ledger entries: matches is a list of {bank_transaction_id, ledger_entry_id, amount_minor} ' +
      '(integer minor units), one transaction to one entry, one to several or several to one, up to 500 pairs. suggest_matches proposes them. ' +
      `${NOTHING_CHANGES} ${OUTCOMES} A pair that over-allocates its transaction or entry, crosses currencies or directions, or is already linked is refused with that code. ${KEY}`,
  },
};
