import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { signatureHeader, verifySignature } from '../../shared/webhook-signature.js';
import { isForbiddenAddress, urlProblem } from '../../shared/webhook-address.js';
import { sendEvent } from '../../worker/webhooks/send.js';
import { decryptSecret, encryptSecret } from '../../shared/webhook-secret.js';
import { retryDelayMs } from '../../shared/domain/events.js';

describe('webhook signatures', () => {
  const body = '{"id":"evt_1","type":"staged_operation.staged"}';
  const now = 1_800_000_000;

  it('signs "<t>.<raw body>" with HMAC-SHA256 of the secret, as t=…,v1=<hex>', () => {
    const hex = createHmac('sha256', 'whsec_test').update(`1800000000.${body}`).digest('hex');
    expect(signatureHeader('whsec_test', body, now)).to.equal(`t=1800000000,v1=${hex}`);
  });

  it('verifies its own signature and detects a wrong secret, a changed body, a changed time and an old delivery', () => {
    const header = signatureHeader('whsec_test', body, now);
    expect(verifySignature('whsec_test', body, header, now)).to.equal(true);
    expect(verifySignature('whsec_other', body, header, now)).to.equal(false);
    expect(verifySignature('whsec_test', `${body} `, header, now)).to.equal(false);
    expect(verifySignature('whsec_test', body, header.replace('t=1800000000', 't=1800000001'), now)).to.equal(false);
    expect(verifySignature('whsec_test', body, header, now + 301)).to.equal(false);
    expect(verifySignature('whsec_test', body, 'garbage', now)).to.equal(false);
  });

  it('keeps secrets encrypted at rest: decrypts with the key, fails with another', () => {
    const stored = encryptSecret('k'.repeat(40), 'whsec_abc');
    expect(stored).to.not.include('whsec_abc');
    expect(decryptSecret('k'.repeat(40), stored)).to.equal('whsec_abc');
    expect(() => decryptSecret('j'.repeat(40), stored)).to.throw();
  });

  it('retries after 30 s, 60 s, … doubling: eight attempts span more than an hour', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, 30_000));
    expect(delays).to.deep.equal([30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000]);
    expect(delays.reduce((a, b) => a + b, 0)).to.be.greaterThan(3_600_000);
  });
});

describe('webhook addresses', () => {
  it('refuses loopback, private, link-local, shared, metadata and IPv4-mapped private addresses; allows public ones', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect([a, isForbiddenAddress(a)]).to.deep.equal([a, true]);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])
      expect([a, isForbiddenAddress(a)]).to.deep.equal([a, false]);
  });

  it('accepts only https URLs without credentials, unless insecure endpoints are allowed', () => {
    expect(urlProblem('https://hooks.example.com/x', false)).to.equal(null);
    expect(urlProblem('http://hooks.example.com/x', false)).to.equal('not_https');
    expect(urlProblem('https://user:pw@hooks.example.com/x', false)).to.equal('credentials_in_url');
    expect(urlProblem('https://127.0.0.1/x', false)).to.equal('forbidden_address');
    expect(urlProblem('ftp://hooks.example.com/x', true)).to.equal('not_https');
    expect(urlProblem('http://127.0.0.1:8080/x', true)).to.equal(null);
  });

  it('refuses to send to a private address at send time, without connecting', async () => {
    const result = await sendEvent('https://192.168.0.10:1/hook', '{}', {}, { timeoutMs: 1000, allowInsecure: false });
    expect([result.ok, result.error]).to.deep.equal([false, 'forbidden_address']);
  });
});
