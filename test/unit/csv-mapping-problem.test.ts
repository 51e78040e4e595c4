// csvMappingProblem (docs/guide/statement-import.md "Saved CSV mapping"): what a
// saved mapping must hold as a whole, beyond each field's schema.
import { expect } from 'chai';
import { csvMappingProblem, DEFAULT_CSV_MAPPING, type CsvMapping } from '../../shared/domain/statement-import/csv.js';

const mapping = (fields: Partial<CsvMapping>): CsvMapping => ({
  ...DEFAULT_CSV_MAPPING,
  date_column: 'date',
  ...fields,
});
const AMOUNTS =
  'give amount_column, or amount_column + direction_column + credit_value, or debit_column + credit_column';

describe('csvMappingProblem', () => {
  it('accepts the three forms of the amount: signed, unsigned with a direction, debit and credit columns', () => {
    expect(csvMappingProblem(mapping({ amount_column: 'amount' }))).to.equal(null);
    expect(csvMappingProblem(mapping({ amount_column: 'amount', direction_column: 'dc', credit_value: 'C' }))).to.equal(
      null,
    );
    expect(csvMappingProblem(mapping({ debit_column: 'out', credit_column: 'in' }))).to.equal(null);
  });

  it('refuses no amount, a direction without its credit value, a credit value alone, a debit column alone', () => {
    for (const fields of [
      {},
      { amount_column: 'a', direction_column: 'dc' },
      { amount_column: 'a', credit_value: 'C' },
      { debit_column: 'o' },
    ]) {
      expect(csvMappingProblem(mapping(fields)), JSON.stringify(fields)).to.deep.equal({
        field: 'amount_column',
        reason: AMOUNTS,
      });
    }
  });

  it('refuses a date format without DD, MM and a year', () => {
    expect(csvMappingProblem(mapping({ amount_column: 'a', date_format: 'YYYY-MM' }))).to.deep.equal({
      field: 'date_format',
      reason: '"YYYY-MM" needs DD, MM and YYYY',
    });
    expect(csvMappingProblem(mapping({ amount_column: 'a', date_format: 'DD.MM.YY' }))).to.equal(null);
  });
});
