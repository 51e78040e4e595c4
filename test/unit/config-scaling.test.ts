// The configuration that scaling out relies on (docs/operating/scaling.md, docs/indexes.md).
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../shared/config.js';

const base = { MONGO_URL: 'mongodb://127.0.0.1:27017/books', REDIS_URL: 'redis://127.0.0.1:6379' };

describe('config for scaling out', () => {
  it('accepts a QUEUE_PREFIX with one Redis Cluster hash tag, and keeps the default bookstage', () => {
    expect(loadConfig(base).queuePrefix).to.equal('bookstage');
    for (const prefix of ['{bookstage}', 'prod-{bookstage}', '{bst_1}-eu', 'plain-prefix']) {
      expect(loadConfig({ ...base, QUEUE_PREFIX: prefix }).queuePrefix).to.equal(prefix);
    }
  });

  it('refuses unbalanced, empty, nested or repeated braces, other characters, and more than 64 characters', () => {
    for (const prefix of ['{bookstage', 'bookstage}', '{}', '{{a}}', '{a}{b}', 'a:b', 'a b', `{${'x'.repeat(63)}}`]) {
      expect(() => loadConfig({ ...base, QUEUE_PREFIX: prefix }), prefix)
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(/QUEUE_PREFIX is invalid/);
    }
    expect(loadConfig({ ...base, QUEUE_PREFIX: `{${'x'.repeat(62)}}` }).queuePrefix).to.have.length(64);
  });

  it('takes FERRETDB_POSTGRES_URL when set, leaves it out otherwise, and never prints a bad one', () => {
    expect(loadConfig(base).ferretdbPostgresUrl).to.equal('');
    expect(
      loadConfig({ ...base, FERRETDB_POSTGRES_URL: 'postgres://u:pw@db:5432/ferretdb' }).ferretdbPostgresUrl,
    ).to.equal('postgres://u:pw@db:5432/ferretdb');
    expect(() => loadConfig({ ...base, FERRETDB_POSTGRES_URL: 'mysql://u:secretpw@db/x' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/FERRETDB_POSTGRES_URL is invalid \(\d+ characters, not shown\)/)
      .and.not.include('secretpw');
  });
});
