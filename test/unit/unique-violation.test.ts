// The one reader of MongoDB's duplicate-key code (shared/storage/unique-violation.ts):
// which driver errors count as a unique violation, and where an ordered bulk insert stopped.
import { expect } from 'chai';
import { isUniqueViolation, refusedDuplicateIndex } from '../../shared/storage/unique-violation.js';

describe('unique-violation: the duplicate-key code read in one place', () => {
  it('a single write refused with code 11000 is a unique violation; any other code is not', () => {
    expect(isUniqueViolation({ code: 11000 })).to.equal(true);
    expect(isUniqueViolation({ code: 112 })).to.equal(false);
    expect(isUniqueViolation(new Error('network'))).to.equal(false);
  });

  it('a bulk write is a unique violation only when every per-document error is one', () => {
    expect(isUniqueViolation({ writeErrors: [{ code: 11000 }, { code: 11000 }] })).to.equal(true);
    expect(isUniqueViolation({ writeErrors: { code: 11000 } })).to.equal(true);
    expect(isUniqueViolation({ writeErrors: [{ code: 11000 }, { code: 2 }] })).to.equal(false);
    expect(isUniqueViolation({ writeErrors: [] })).to.equal(false);
  });

  it('an ordered insert refused by a duplicate stopped at the first error index', () => {
    expect(refusedDuplicateIndex({ writeErrors: [{ code: 11000, index: 3 }] })).to.equal(3);
    expect(refusedDuplicateIndex({ writeErrors: { code: 11000, index: 0 } })).to.equal(0);
    expect(refusedDuplicateIndex({ writeErrors: [{ code: 2, index: 3 }] })).to.equal(null);
    expect(refusedDuplicateIndex({ writeErrors: [{ code: 11000 }] })).to.equal(null);
    expect(refusedDuplicateIndex({ code: 11000 })).to.equal(null);
  });
});
