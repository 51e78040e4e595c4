// What the test and services scripts say when they cannot apt-get a package
// (scripts/services/processes.ts): the MONGO_URL way out belongs to the
// servers only, not to the ledger tools (docs/guide/ledger-exchange.md "How
// the tests check it").
import { expect } from 'chai';
import { aptRefusal } from '../../scripts/services/processes.js';

describe('apt-get refusal messages', () => {
  it('names the packages and the command, and another way only where there is one', () => {
    expect(aptRefusal(['hledger'])).to.equal(
      'missing Debian packages hledger; install them (apt-get install -y hledger)',
    );
    expect(aptRefusal(['redis-server'], 'set MONGO_URL and REDIS_URL')).to.equal(
      'missing Debian packages redis-server; install them (apt-get install -y redis-server) or set MONGO_URL and REDIS_URL',
    );
  });
});
