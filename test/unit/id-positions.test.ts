import { expect } from 'chai';
import { positionsById } from '../../shared/domain/id-positions.js';

describe('resolving references to records by id', () => {
  const records = [{ id: 'a1' }, { id: 'a3' }, { id: 'b' }, { id: 'b0' }];
  const refs = [{ to: 'b' }, { to: 'a1' }, { to: 'a2' }, { to: 'b' }, { to: 'c' }, { to: 'b0' }];

  it('gives each reference the position of the record it names, -1 for an id not passed, with references in any order', () => {
    expect([...positionsById(records, true, refs, 'to')]).to.deep.equal([2, 0, -1, 2, -1, 3]);
  });

  it('gives the same positions for records in no id order (the map path)', () => {
    const shuffled = [records[2]!, records[0]!, records[3]!, records[1]!];
    expect([...positionsById(shuffled, false, refs, 'to')]).to.deep.equal([0, 1, -1, 0, -1, 2]);
  });

  it('compares ids by code units, as the store orders them', () => {
    const upper = [{ id: 'Z' }, { id: 'a' }, { id: 'é' }];
    expect([...positionsById(upper, true, [{ to: 'é' }, { to: 'a' }, { to: 'Z' }], 'to')]).to.deep.equal([2, 1, 0]);
  });
});
