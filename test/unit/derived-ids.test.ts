// A derived id (shared/ids.ts) is a function of its seed alone: a retried job
// writes the same records, so the digest it takes may never change.
import { expect } from 'chai';
import { derivedId } from '../../shared/ids.js';
import { repairLinkId } from '../../shared/kinds/ledger-link-repair/journal.js';

describe('derived ids', () => {
  it('are the prefix and the first 24 hex digits of the seed’s SHA-256', () => {
    // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad (FIPS 180-2, B.1).
    expect(derivedId('lnk', 'abc')).to.equal('lnk_ba7816bf8f01cfea414140de');
  });

  it('give a repair’s new link the same id on every apply of it', () => {
    // SHA-256("org_1:stg_1:bt_1:le_1"), its first 24 hex digits: the id ledger links written before hold.
    expect(repairLinkId({ org_id: 'org_1', staged_operation_id: 'stg_1' }, 'bt_1', 'le_1')).to.equal(
      'lnk_ee98a34a6898661b09d015aa',
    );
  });
});
