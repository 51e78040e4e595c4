import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../shared/config.js';

const base = { MONGO_URL: 'mongodb://127.0.0.1:27017/books', REDIS_URL: 'redis://127.0.0.1:6379' };

describe('configuration from the environment', () => {
  it('applies defaults for everything but the two URLs', () => {
    expect(loadConfig(base)).to.deep.equal({
      mongoUrl: base.MONGO_URL,
      redisUrl: base.REDIS_URL,
      port: 8080,
      logLevel: 'info',
      queuePrefix: 'bookstage',
      stageWaitMs: 10_000,
      stageWaitMaxMs: 60_000,
      workerConcurrency: 4,
      stageJobAttempts: 6,
      stageJobBackoffMs: 1000,
      workerLockDurationMs: 30_000,
      recoverySweepMs: 60_000,
      workerStalledIntervalMs: 15_000,
      stagedTtlHours: 168,
      ferretdbPostgresUrl: '',
      rateLimitRequests: 600,
      rateLimitWindowS: 60,
      rateLimitAuthFailures: 60,
      workerMetricsPort: 9464,
      workerMetricsHost: '127.0.0.1',
      tokenCacheMs: 10_000,
      cursorSecret: createHash('sha256').update(`bookstage cursor secret v1\n${base.MONGO_URL}`).digest('base64url'),
      webhookAllowInsecure: 'false',
      webhookMaxAttempts: 8,
      webhookBackoffMs: 30_000,
      webhookTimeoutMs: 10_000,
      webhookConcurrency: 8,
      webhookOrgConcurrency: 2,
      webhookDispatchEveryMs: 1000,
      eventRetentionDays: 30,
      webhookSecretKey: createHash('sha256').update(`bookstage webhook key v1\n${base.MONGO_URL}`).digest('base64url'),
    });
  });

  it('derives the default cursor secret from MONGO_URL, so replicas sharing a database agree', () => {
    expect(loadConfig(base).cursorSecret).to.equal(loadConfig({ ...base, PORT: '9090' }).cursorSecret);
    expect(loadConfig(base).cursorSecret).to.not.equal(
      loadConfig({ ...base, MONGO_URL: 'mongodb://127.0.0.1:27017/other' }).cursorSecret,
    );
  });

  it('takes CURSOR_SECRET as given, and refuses a short one without printing it', () => {
    const secret = 'k'.repeat(40);
    expect(loadConfig({ ...base, CURSOR_SECRET: secret }).cursorSecret).to.equal(secret);
    expect(() => loadConfig({ ...base, CURSOR_SECRET: 'short-secret' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/CURSOR_SECRET is invalid \(12 characters, not shown\)/)
      .and.not.include('short-secret');
  });

  it('takes STAGED_TTL_HOURS in hours from 1', () => {
    expect(loadConfig({ ...base, STAGED_TTL_HOURS: '24' }).stagedTtlHours).to.equal(24);
    expect(() => loadConfig({ ...base, STAGED_TTL_HOURS: '0' })).to.throw(/STAGED_TTL_HOURS is invalid/);
  });

  it('names every missing or bad variable in one message', () => {
    expect(() => loadConfig({ REDIS_URL: 'http://x', PORT: 'eighty' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/MONGO_URL is not set/)
      .and.matches(/REDIS_URL is invalid \("http:\/\/x"\)/)
      .and.matches(/PORT is invalid/);
  });

  it('refuses a port above 65535', () => {
    expect(() => loadConfig({ ...base, PORT: '70000' })).to.throw(/PORT is invalid \(70000\)/);
  });
});

describe('config in production (NODE_ENV=production, as the image sets it)', () => {
  const base = { MONGO_URL: 'mongodb://127.0.0.1:27017/books', REDIS_URL: 'redis://127.0.0.1:6379' };

  it('refuses an API without CURSOR_SECRET, naming it; development derives one', () => {
    expect(() => loadConfig({ ...base, NODE_ENV: 'production' }, 'api'))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/CURSOR_SECRET is not set: required when NODE_ENV=production/);
    expect(loadConfig(base, 'api').cursorSecret).to.have.length.greaterThan(31);
  });

  it('starts an API with CURSOR_SECRET and WEBHOOK_SECRET_KEY set, and a worker without CURSOR_SECRET (only the API reads it)', () => {
    const secret = 'x'.repeat(40);
    const key = 'k'.repeat(40);
    expect(
      loadConfig({ ...base, NODE_ENV: 'production', CURSOR_SECRET: secret, WEBHOOK_SECRET_KEY: key }, 'api')
        .cursorSecret,
    ).to.equal(secret);
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key }, 'worker')).not.to.throw();
    expect(() => loadConfig({ ...base, NODE_ENV: 'production' }, 'worker'))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/WEBHOOK_SECRET_KEY is not set: required when NODE_ENV=production/);
  });
});
