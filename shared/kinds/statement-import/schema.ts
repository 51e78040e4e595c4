// Path and query of POST /api/v1/cli/bank-accounts/{bank_account_id}/statements/import/stage
// (docs/guide/statement-import.md): the file is the raw body; the query names its
// format, an encoding and, for a CSV, the column mapping. Unknown parameters
// are refused.
import type { FromSchema } from 'json-schema-to-ts';
import type { CsvMapping } from './csv.js';
import type { StatementFormat } from './model.js';
import { id, SAFE_TEXT_PATTERN, timestamp } from '../../schemas/common.js';
import { stagingQuerySchema } from '../../schemas/staging-query.js';
import { CSV_MAPPING_PARAMS } from './csv-params.js';

/** The raw body's own limit (other routes keep the 1 MB JSON limit). */
export const STATEMENT_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

export const statementImportParamsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { bank_account_id: id },
  required: ['bank_account_id'],
} as const;

// Text that is stored (with the operation, or as a saved mapping): no control characters, lone surrogates or bidi controls (shared/schemas/common.ts).
const column = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  pattern: SAFE_TEXT_PATTERN,
  description: 'A column by its header text or its 1-based position.',
} as const;

export const statementImportQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    format: {
      enum: ['auto', 'camt053', 'ofx', 'mt940', 'csv'],
      description: 'Default `auto`: sniffed from the content.',
    },
    encoding: {
      type: 'string',
      minLength: 1,
      maxLength: 40,
      pattern: '^[A-Za-z0-9_.:-]+$',
      description: 'Overrides what the file declares (any name iconv-lite knows: `utf-8`, `latin1`, `cp1252`, …).',
    },
    dry_run: stagingQuerySchema.properties.dry_run,
    date_column: column,
    amount_column: column,
    direction_column: column,
    credit_value: {
      type: 'string',
      minLength: 1,
      maxLength: 50,
      pattern: SAFE_TEXT_PATTERN,
      description: "The direction column's value of a credit (case-insensitive).",
    },
    debit_column: column,
    credit_column: column,
    date_format: {
      type: 'string',
      minLength: 4,
      maxLength: 20,
      pattern: SAFE_TEXT_PATTERN,
      description: 'Tokens DD, MM, YYYY/YY; default `YYYY-MM-DD`.',
    },
    decimal_separator: { enum: ['.', ','] },
    delimiter: { type: 'string', minLength: 1, maxLength: 1, pattern: SAFE_TEXT_PATTERN },
    header: { enum: ['true', 'false'] },
    skip_rows: { type: 'integer', minimum: 0, maximum: 1000 },
    value_date_column: column,
    currency_column: column,
    reference_column: column,
    counterparty_column: column,
    iban_column: column,
    remittance_column: column,
  },
  // A mapping needs its date column.
  dependencies: Object.fromEntries(
    CSV_MAPPING_PARAMS.filter((p) => p !== 'date_column').map((p) => [p, ['date_column']]),
  ),
} as const;

export type StatementImportQuery = FromSchema<typeof statementImportQuerySchema>;

/** Where the API stored the statement file for its job (shared/storage/statement-uploads.ts). */
export interface StatementUploadRef {
  upload_id: string;
  sha256: string;
  bytes: number;
}

/**
 * What the job gets: the account, how to read the file, and where the file is
 * (shared/storage/statement-uploads.ts): never the file itself, which would
 * sit in Redis with the job (docs/operating/reliability.md "What Redis
 * holds"), nor stored with the operation.
 */
export interface StatementImportStageInput {
  bank_account_id: string;
  format: StatementFormat | 'auto';
  encoding: string | null;
  csv: CsvMapping | null;
  file: StatementUploadRef;
}

/**
 * The body of PUT /api/v1/cli/bank-accounts/{bank_account_id}/csv-mapping
 * (docs/guide/statement-import.md "Saved CSV mapping"): the query's mapping
 * fields under the same names and rules, as JSON (`header` a boolean,
 * `skip_rows` a number). Unknown fields are refused.
 */
const q = statementImportQuerySchema.properties;
export const csvMappingBodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    date_column: q.date_column,
    amount_column: q.amount_column,
    direction_column: q.direction_column,
    credit_value: q.credit_value,
    debit_column: q.debit_column,
    credit_column: q.credit_column,
    date_format: q.date_format,
    decimal_separator: q.decimal_separator,
    delimiter: q.delimiter,
    header: { type: 'boolean', description: 'Default true: the first row (after `skip_rows`) names the columns.' },
    skip_rows: q.skip_rows,
    value_date_column: q.value_date_column,
    currency_column: q.currency_column,
    reference_column: q.reference_column,
    counterparty_column: q.counterparty_column,
    iban_column: q.iban_column,
    remittance_column: q.remittance_column,
  },
  required: ['date_column'],
} as const;

export type CsvMappingBody = FromSchema<typeof csvMappingBodySchema>;

const storedMapping = {
  type: 'object',
  additionalProperties: false,
  properties: csvMappingBodySchema.properties,
  required: ['date_column', 'date_format', 'decimal_separator', 'delimiter', 'header', 'skip_rows'],
} as const;

/** The `data` of GET and PUT …/csv-mapping: the saved mapping with its defaults filled in, or null when none is saved. */
export const csvMappingAnswerSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    bank_account_id: id,
    csv_mapping: { anyOf: [storedMapping, { type: 'null' }] },
    updated_at: { anyOf: [timestamp, { type: 'null' }] },
    updated_by: {
      anyOf: [{ type: 'string', maxLength: 200 }, { type: 'null' }],
      description: 'The actor who saved it.',
    },
  },
  required: ['bank_account_id', 'csv_mapping', 'updated_at', 'updated_by'],
} as const;
