// The statement import's CSV mapping parameters, as plain data: the route's
// query schema (schema.ts) is built from them, and the CLI makes one flag of
// each without loading the schemas (docs/design/performance.md "CLI start and book pages").
/** The CSV mapping parameters; any of them makes the request a mapped CSV. */
export const CSV_MAPPING_PARAMS = [
  'date_column',
  'amount_column',
  'direction_column',
  'credit_value',
  'debit_column',
  'credit_column',
  'date_format',
  'decimal_separator',
  'delimiter',
  'header',
  'skip_rows',
  'value_date_column',
  'currency_column',
  'reference_column',
  'counterparty_column',
  'iban_column',
  'remittance_column',
] as const;
