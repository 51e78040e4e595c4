// Which failures are a lost dependency (503 dependency_unavailable or
// outcome_unknown, retryable) rather than a bug (500): docs/operating/reliability.md.
import { expect } from 'chai';
import { unreachableDependency } from '../../shared/dependency-errors.js';

describe('a lost dependency, told from a bug', () => {
  it("counts ioredis' Cluster client failing over as Redis unreachable", () => {
    const failover = [
      new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
      Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' }),
      new Error('CLUSTERDOWN The cluster is down'),
      new Error('TRYAGAIN Multiple keys request during rehashing of slot'),
    ];
    for (const err of failover) expect(unreachableDependency(err), err.message).to.equal('Redis');
  });

  it('leaves any other error a bug', () => {
    expect(unreachableDependency(new Error('Cannot read properties of undefined'))).to.equal(null);
    expect(unreachableDependency('a string')).to.equal(null);
  });
});
