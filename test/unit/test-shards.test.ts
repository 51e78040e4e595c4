// How `npm test` splits the suite between its processes (scripts/test-shards.ts,
// docs/guide/quick-start.md "Running the tests").
import { expect } from 'chai';
import { splitFiles } from '../../scripts/test-shards.js';

describe('npm test: splitting the suite between processes', () => {
  it('puts the longest file first onto the least loaded process, each file exactly once', () => {
    const weights = { 'a.test.js': 10, 'b.test.js': 7, 'c.test.js': 5, 'd.test.js': 4, 'e.test.js': 2 };
    // 10 → 1; 7 → 2; 5 → 2 (12); 4 → 1 (14); 2 → 2 (14).
    expect(splitFiles(Object.keys(weights), weights, 2)).to.deep.equal([
      ['a.test.js', 'd.test.js'],
      ['b.test.js', 'c.test.js', 'e.test.js'],
    ]);
  });

  it('weighs a file without a timing as the median of the known ones', () => {
    const weights = { 'a.test.js': 1, 'b.test.js': 9, 'c.test.js': 10 };
    // new.test.js weighs 9, the median: c (10) → 1; b (9) → 2; new (9) → 2, the lighter (18); a (1) → 1 (11).
    expect(splitFiles(['a.test.js', 'b.test.js', 'c.test.js', 'new.test.js'], weights, 2)).to.deep.equal([
      ['a.test.js', 'c.test.js'],
      ['b.test.js', 'new.test.js'],
    ]);
  });

  it('gives the same split for the same files and weights, whatever their order, and no empty process', () => {
    const files = ['x.test.js', 'y.test.js', 'z.test.js'];
    expect(splitFiles(files, {}, 2)).to.deep.equal(splitFiles([...files].reverse(), {}, 2));
    expect(splitFiles(['only.test.js'], {}, 4)).to.deep.equal([['only.test.js']]);
    expect(splitFiles(files, {}, 1)).to.deep.equal([files]);
  });
});
