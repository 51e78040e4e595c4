import { expect } from 'chai';
import { changedPreconditions, preconditionKey } from '../../shared/domain/preconditions.js';

describe('plan preconditions', () => {
  it('lists, in plan order, every document whose version differs or that is gone; [] when all match', () => {
    const pre = [
      { collection: 'orgs' as const, id: 'org_1', version: 1 },
      { collection: 'ledger_entries' as const, id: 'le_1', version: 3 },
      { collection: 'bank_links' as const, id: 'lnk_1', version: 1 },
    ];
    const current = new Map([
      [preconditionKey('orgs', 'org_1'), 1],
      [preconditionKey('ledger_entries', 'le_1'), 4],
    ]);
    expect(changedPreconditions(pre, current)).to.deep.equal([
      { collection: 'ledger_entries', id: 'le_1', expected_version: 3, actual_version: 4 },
      { collection: 'bank_links', id: 'lnk_1', expected_version: 1, actual_version: null },
    ]);
    current.set(preconditionKey('ledger_entries', 'le_1'), 3);
    current.set(preconditionKey('bank_links', 'lnk_1'), 1);
    expect(changedPreconditions(pre, current)).to.deep.equal([]);
  });
});
