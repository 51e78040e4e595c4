// csvMappingProblem (docs/guide/statement-import.md "Saved CSV mapping"): what a
// saved mapping must hold as a whole, beyond each field's schema.
import { expect } from 'chai';
import { csvMappingProblem, DEFAULT_CSV_MAPPING, type CsvMapping } from '../../shared/kinds/statement-import/csv.js';

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

  it('refuses amount_column together with debit_column or credit_column, naming the one given', () => {
    const reason = 'give amount_column or debit_column + credit_column, not both';
    expect(csvMappingProblem(mapping({ amount_column: 'a', debit_column: 'o', credit_column: 'i' }))).to.deep.equal({
      field: 'debit_column',
      reason,
    });
    expect(csvMappingProblem(mapping({ amount_column: 'a', credit_column: 'i' }))).to.deep.equal({
      field: 'credit_column',
      reason,
    });
  });

  it('refuses a delimiter that is a quote, a line break or the decimal separator', () => {
    for (const delimiter of ['"', '\n', '\r']) {
      expect(csvMappingProblem(mapping({ amount_column: 'a', delimiter })), JSON.stringify(delimiter)).to.deep.equal({
        field: 'delimiter',
        reason: 'a delimiter cannot be a quote or a line break',
      });
    }
    expect(csvMappingProblem(mapping({ amount_column: 'a', delimiter: ',', decimal_separator: ',' }))).to.deep.equal({
      field: 'delimiter',
      reason: 'the delimiter cannot be the decimal separator ","',
    });
    expect(csvMappingProblem(mapping({ amount_column: 'a', delimiter: ';', decimal_separator: ',' }))).to.equal(null);
  });
});
