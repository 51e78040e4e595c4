import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../shared/config.js';

const base = { MONGO_URL: 'mongodb://127.0.0.1:27017/books', REDIS_URL: 'redis://127.0.0.1:6379' };

describe('configuration from the environment', () => {
  it('applies defaults for everything but the two URLs', () => {
    expect(loadConfig(base)).to.deep.equal({
      mongoUrl: base.MONGO_URL, redisUrl: base.REDIS_URL, port: 8080, logLevel: 'info', queuePrefix: 'bookstage',
      stageWaitMs: 10_000, stageWaitMaxMs: 60_000, workerConcurrency: 4,
    });
  });

  it('names every missing or bad variable in one message', () => {
    expect(() => loadConfig({ REDIS_URL: 'http://x', PORT: 'eighty' })).to.throw(ConfigError)
      .with.property('message').that.matches(/MONGO_URL is not set/).and.matches(/REDIS_URL is invalid \("http:\/\/x"\)/).and.matches(/PORT is invalid/);
  });

  it('refuses a port above 65535', () => {
    expect(() => loadConfig({ ...base, PORT: '70000' })).to.throw(/PORT is invalid \(70000\)/);
  });
});
