import { expect } from 'chai';
import { EXIT, exitCodeFor } from '../../cli/bookstage/exit-codes.js';
import { formatMoney } from '../../cli/bookstage/output/money.js';
import { colourEnabled, makeStyle } from '../../cli/bookstage/output/style.js';

describe('bookstage CLI output', () => {
  it('formats minor units with the decimals of their currency', () => {
    expect(formatMoney(56_000, 'EUR')).to.equal('560.00 EUR');
    expect(formatMoney(-5, 'EUR')).to.equal('-0.05 EUR');
    expect(formatMoney(123_456_789, 'EUR', { signed: true })).to.equal('+1,234,567.89 EUR');
    expect(formatMoney(1_500, 'JPY')).to.equal('1,500 JPY');
    expect(formatMoney(1_234, 'KWD')).to.equal('1.234 KWD');
    expect(formatMoney(4_000, null)).to.equal('4,000 minor units');
    expect(formatMoney(4_000, 'ZZ1')).to.equal('4,000 ZZ1 minor units');
  });

  it('colours only a terminal, and never with NO_COLOR set', () => {
    expect(colourEnabled(true, {})).to.equal(true);
    expect(colourEnabled(false, {})).to.equal(false);
    expect(colourEnabled(undefined, {})).to.equal(false);
    expect(colourEnabled(true, { NO_COLOR: '1' })).to.equal(false);
    expect(colourEnabled(true, { NO_COLOR: '' })).to.equal(true);
    expect(makeStyle(true).red('x')).to.equal('\u001b[31mx\u001b[39m');
    expect(makeStyle(false).red('x')).to.equal('x');
  });

  it('maps answers to the documented exit codes', () => {
    expect(exitCodeFor(201, { outcome: 'staged' })).to.equal(EXIT.ok);
    expect(exitCodeFor(200, { outcome: 'noop' })).to.equal(EXIT.ok);
    expect(exitCodeFor(200, { outcome: 'blocked' })).to.equal(EXIT.conflict);
    expect(exitCodeFor(202, { outcome: 'pending' })).to.equal(EXIT.pending);
    expect([400, 413, 415].map((s) => exitCodeFor(s, null))).to.deep.equal([2, 2, 2]);
    expect([401, 403].map((s) => exitCodeFor(s, null))).to.deep.equal([5, 5]);
    expect(exitCodeFor(404, null)).to.equal(EXIT.notFound);
    expect([409, 422].map((s) => exitCodeFor(s, null))).to.deep.equal([3, 3]);
    expect([500, 503].map((s) => exitCodeFor(s, null))).to.deep.equal([1, 1]);
  });
});
