// The statement import kind as the wire knows it (docs/design/architecture.md "Kinds"):
// its staging call's route entry, its plan's summary, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import type { StatementImportPlan } from './plan.js';
import { STATEMENT_BODY_LIMIT_BYTES, statementImportParamsSchema, statementImportQuerySchema } from './schema.js';
import { orDryRun, statementImportDryRunSchema, statementImportResultSchema } from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';
import { sumAbsMinor } from '../operation-amount.js';

const IMPORT_ERRORS: ErrorCode[] = [
  'not_found',
  'route_not_found',
  'unreadable_statement',
  'unsupported_statement_version',
  'amount_out_of_range',
  'account_mismatch',
  'currency_mismatch',
];

export const statementImport: KindModule<'statement_import'> = {
  kind: 'statement_import',
  route: stagingRoute({
    operation: 'statement_import.stage',
    summary: 'Stage a bank statement import (CAMT.053, OFX, MT940, CSV)',
    description:
      "The statement file is the raw request body (any Content-Type, up to 10 MB: this route's own limit). Its booked entries are compared with the account's transactions; the new ones are staged for review, duplicates listed as skipped. A CSV needs its column mapping as query parameters (docs/guide/statement-import.md).",
    scope: 'bank:stage',
    pathParams: { schema: statementImportParamsSchema },
    body: {
      query: statementImportQuerySchema,
      raw: {
        description: 'The statement file as exported by the bank (CAMT.053 XML, OFX, MT940, CSV), any Content-Type.',
        limitBytes: STATEMENT_BODY_LIMIT_BYTES,
      },
    },
    answered: {
      description:
        '`noop` (every entry is skipped: already on the account, or dated in a closed period), or the very same plan already pending (`staged`, warning `already_staged`).',
      data: orDryRun(statementImportResultSchema, statementImportDryRunSchema),
    },
    created: {
      data: statementImportResultSchema,
      warnings:
        'Warnings: `statement_out_of_balance`, `opening_balance_differs`, `pending_entries_left_out`, `foreign_currency_entries`, `other_account_statements_left_out`.',
    },
    refusals: IMPORT_ERRORS,
  }),
  refusals: IMPORT_ERRORS,
  summary: (plan) => {
    const p = plan as StatementImportPlan;
    return {
      bank_account_id: p.bank_account_id,
      format: p.format,
      new_transactions: p.new_transactions.length,
      skipped: p.skipped.length,
      new_total_minor: p.new_transactions.reduce((s, t) => s + t.amount_minor, 0),
    };
  },
  // Σ|amount| of the new transactions, in their currency (the account's; every entry in another is left out).
  amount: (plan, context) => {
    const p = plan as StatementImportPlan;
    return {
      amount_minor: sumAbsMinor(p.new_transactions.map((t) => t.amount_minor)),
      currency: p.new_transactions[0]?.currency ?? context.bank_account?.currency ?? p.statements[0]?.currency ?? null,
    };
  },
  cli: { label: 'statement import', noop: 'every entry of the file is skipped (see each reason)' },
  mcp: {
    name: 'stage_statement_import',
    title: 'Stage a bank statement import',
    description:
      'Reads a bank statement file (CAMT.053, OFX, MT940, or a CSV with its column mapping: date_column and amount_column, …) for one bank account ' +
      '(bank_account_id) and stages its new transactions for review; entries already on the account or dated in a closed period are listed as skipped with the reason. Give the file as ' +
      `content (text) or content_base64 (any bytes). ${NOTHING_CHANGES} Besides "staged" and "pending", the outcome may be "noop" (every entry is already on ` +
      `the account; nothing staged). ${OUTCOMES} An unreadable file is refused as unreadable_statement (details.location says where), a file of another account as account_mismatch. ${KEY}`,
  },
};
