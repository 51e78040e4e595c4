import { expect } from 'chai';
import { openCursor, sealCursor } from '../../api/cursor.js';
import { queryObject } from '../../api/query-string.js';

const secret = 's'.repeat(43);
const scope = { list: 'inbox_duplicates', org_id: 'org_a' };
const at = {
  after: { newest_received_at: '2026-03-01T08:00:00.000Z', group_id: 'grp_0123456789abcdef' },
  min_confidence: 0.9,
};
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('list cursors', () => {
  it('opens a cursor it sealed to the same position', () => {
    const cursor = sealCursor(secret, scope, at);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(openCursor(secret, scope, cursor)).to.deep.equal(at);
  });

  it('is the same string for the same position (stable while the data does not change)', () => {
    expect(sealCursor(secret, scope, at)).to.equal(sealCursor(secret, scope, structuredClone(at)));
  });

  it('refuses a cursor sealed for another organisation, another list or with another secret', () => {
    const cursor = sealCursor(secret, scope, at);
    expect(openCursor(secret, { ...scope, org_id: 'org_b' }, cursor)).to.equal(null);
    expect(openCursor(secret, { ...scope, list: 'staged_operations' }, cursor)).to.equal(null);
    expect(openCursor('t'.repeat(43), scope, cursor)).to.equal(null);
  });

  it('refuses every single-character change, including ones Node would decode to the same bytes', () => {
    const cursor = sealCursor(secret, scope, at);
    let sameBytes = 0;
    for (let i = 0; i < cursor.length; i++) {
      for (const c of ALPHABET) {
        if (c === cursor[i]) continue;
        const changed = cursor.slice(0, i) + c + cursor.slice(i + 1);
        if (Buffer.from(changed, 'base64url').equals(Buffer.from(cursor, 'base64url'))) sameBytes += 1;
        expect(openCursor(secret, scope, changed), `position ${i} → ${c}`).to.equal(null);
      }
    }
    // The loop did meet the lenient-decoder case it guards against (unused trailing bits), or the length leaves none.
    expect(sameBytes > 0 || cursor.length % 4 === 0).to.equal(true);
  });

  it('refuses appended characters, truncation, padding and junk', () => {
    const cursor = sealCursor(secret, scope, at);
    for (const bad of [
      `${cursor}A`,
      `${cursor}AA`,
      cursor.slice(0, -1),
      `${cursor}=`,
      '',
      'abc',
      '{}',
      Buffer.from('{"v":1,"list":"inbox_duplicates","at":{},"mac":""}').toString('base64url'),
    ]) {
      expect(openCursor(secret, scope, bad), bad).to.equal(null);
    }
  });
});

describe('query strings to typed parameters', () => {
  it('turns decimal strings of the named numeric parameters into numbers', () => {
    expect(queryObject({ limit: '5', min_confidence: '0.90', other: '7' }, ['limit', 'min_confidence'])).to.deep.equal({
      limit: 5,
      min_confidence: 0.9,
      other: '7',
    });
  });

  it('leaves everything else as it came, for the schema to refuse', () => {
    expect(queryObject({ limit: 'abc', min_confidence: '', cursor: '123' }, ['limit', 'min_confidence'])).to.deep.equal(
      { limit: 'abc', min_confidence: '', cursor: '123' },
    );
    expect(queryObject({ limit: ['1', '2'], min_confidence: 'Infinity' }, ['limit', 'min_confidence'])).to.deep.equal({
      limit: ['1', '2'],
      min_confidence: 'Infinity',
    });
  });
});
