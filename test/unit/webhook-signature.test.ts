import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { signatureHeader, verifySignature } from '../../shared/webhook-signature.js';
import { isForbiddenAddress, urlProblem } from '../../shared/webhook-address.js';
import { sendEvent } from '../../worker/webhooks/send.js';
import { decryptSecret, encryptSecret } from '../../shared/webhook-secret.js';
import { retryDelayMs } from '../../shared/domain/events.js';
import { documentedVerify } from '../helpers/events.js';

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

describe("the docs' webhook verification snippet", () => {
  const body = '{"id":"evt_1","type":"staged_operation.staged"}';

  it('refuses, without throwing, a v1 of the right length in characters but not in bytes', async () => {
    const verify = await documentedVerify();
    const t = Math.floor(Date.now() / 1000);
    const good = signatureHeader('whsec_test', body, t);
    expect(verify('whsec_test', body, good)).to.equal(true);
    // 64 characters like a hex digest, 128 or 192 bytes in UTF-8; and 32 characters of 64 bytes.
    for (const v1 of ['é'.repeat(64), '€'.repeat(64), 'é'.repeat(32), '\u0000'.repeat(64), '']) {
      const header = `t=${t},v1=${v1}`;
      expect([v1, verify('whsec_test', body, header)]).to.deep.equal([v1, false]);
    }
    expect(verify('whsec_test', body, `t=${t}`)).to.equal(false);
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

  it('judges an IPv6 address that carries an IPv4 one as that IPv4 address, and refuses the documentation and site-local ranges', () => {
    const cases: Array<[string, boolean]> = [
      // IPv4-compatible, IPv4-mapped (dotted and hex) and the translated ::ffff:0:a.b.c.d form.
      ['::7f00:1', true],
      ['::127.0.0.1', true],
      ['::ffff:7f00:1', true],
      ['::ffff:127.0.0.1', true],
      ['::ffff:a9fe:a9fe', true],
      ['::ffff:0:7f00:1', true],
      ['::ffff:0:a00:1', true],
      ['::ffff:808:808', false],
      ['::ffff:0:808:808', false],
      // 6to4 (2002::/16): the IPv4 address is the next 32 bits.
      ['2002:7f00:1::', true],
      ['2002:a9fe:a9fe::', true],
      ['2002:c0a8:101::1', true],
      ['2002:808:808::1', false],
      // NAT64 (64:ff9b::/96): the last 32 bits; the local-use prefix 64:ff9b:1::/48 is refused whole.
      ['64:ff9b::7f00:1', true],
      ['64:ff9b::a9fe:a9fe', true],
      ['64:ff9b::808:808', false],
      ['64:ff9b:1::808:808', true],
      // Teredo (2001::/32) is refused whole.
      ['2001::1', true],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true],
      // Site-local (deprecated), documentation, discard-only.
      ['fec0::1', true],
      ['feff::1', true],
      ['2001:db8::1', true],
      ['3fff::1', true],
      ['100::1', true],
      // The IPv4 documentation ranges and the 6to4 relay anycast.
      ['192.0.2.1', true],
      ['198.51.100.7', true],
      ['203.0.113.255', true],
      ['192.88.99.1', true],
      ['203.0.114.1', false],
      ['198.51.101.1', false],
      ['2001:4860:4860::8888', false],
      // A zone index is not an address a webhook goes to.
      ['fe80::1%eth0', true],
    ];
    expect(cases.map(([a]) => [a, isForbiddenAddress(a)])).to.deep.equal(cases);
  });

  it('refuses those addresses and local names in a URL, with or without a trailing dot', () => {
    const cases: Array<[string, string | null]> = [
      ['https://[::7f00:1]/x', 'forbidden_address'],
      ['https://[::ffff:0:7f00:1]/x', 'forbidden_address'],
      ['https://[::ffff:127.0.0.1]/x', 'forbidden_address'],
      ['https://[2002:7f00:1::]/x', 'forbidden_address'],
      ['https://[2002:a9fe:a9fe::]/x', 'forbidden_address'],
      ['https://[fec0::1]/x', 'forbidden_address'],
      ['https://192.0.2.1/x', 'forbidden_address'],
      ['https://198.51.100.1/x', 'forbidden_address'],
      ['https://203.0.113.1/x', 'forbidden_address'],
      ['https://127.1/x', 'forbidden_address'],
      ['https://0x7f000001/x', 'forbidden_address'],
      ['https://localhost./x', 'forbidden_address'],
      ['https://LOCALHOST../x', 'forbidden_address'],
      ['https://a.localhost./x', 'forbidden_address'],
      ['https://metadata.google.internal./x', 'forbidden_address'],
      ['https://hooks.example.com./x', null],
      ['https://[2606:4700:4700::1111]/x', null],
    ];
    expect(cases.map(([u]) => [u, urlProblem(u, false)])).to.deep.equal(cases);
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
