import { expect } from 'chai';
import { joinFields, splitFields } from '../../shared/storage/text-parts.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const KEYS = ['a', 'b', 'c'] as const;
type Key = (typeof KEYS)[number];
/** A surrogate half without its other half: text UTF-8 (and so BSON) cannot hold. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('text cut into parts', () => {
  it('fills each part before the next, a field running on into the next part', () => {
    expect(
      splitFields(
        [
          ['a', 'abcdef'],
          ['b', 'gh'],
          ['c', 'ijklm'],
        ],
        4,
      ),
    ).to.deep.equal([{ a: 'abcd' }, { a: 'ef', b: 'gh' }, { c: 'ijkl' }, { c: 'm' }]);
  });

  it('keeps fields that fit together in one part, and an empty field where it falls', () => {
    expect(
      splitFields(
        [
          ['a', '{}'],
          ['b', ''],
          ['c', 'null'],
        ],
        6,
      ),
    ).to.deep.equal([{ a: '{}', b: '', c: 'null' }]);
    expect(
      splitFields(
        [
          ['a', 'abcd'],
          ['b', ''],
        ],
        4,
      ),
    ).to.deep.equal([{ a: 'abcd' }, { b: '' }]);
  });

  it('never cuts a surrogate pair: the pair moves whole to the next part', () => {
    const text = 'ab\u{1F600}cd';
    expect(text.length).to.equal(6);
    expect(splitFields([['a', text]], 3)).to.deep.equal([{ a: 'ab' }, { a: '\u{1F600}c' }, { a: 'd' }]);
    expect(
      splitFields(
        [
          ['a', 'x'],
          ['b', '\u{1F600}'],
        ],
        2,
      ),
    ).to.deep.equal([{ a: 'x' }, { b: '\u{1F600}' }]);
  });

  it('refuses a part too small to hold a surrogate pair', () => {
    expect(() => splitFields([['a', 'abc']], 1)).to.throw(RangeError);
  });

  it('gives back every field as it was, in parts of at most the given size and each well formed, on 500 random cases', () => {
    const random = mulberry32(31);
    const alphabet = ['a', '"', 'ß', '€', '\u{1F600}', '\u{10FFFF}', '\\'];
    for (let n = 0; n < 500; n += 1) {
      const fields = KEYS.filter(() => random() < 0.8).map((key): [Key, string] => [
        key,
        Array.from({ length: Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(
          '',
        ),
      ]);
      const max = 2 + Math.floor(random() * 12);
      const parts = splitFields(fields, max);
      const seed = `case ${n}, max ${max}`;
      expect(joinFields(parts, KEYS), seed).to.deep.equal(Object.fromEntries(fields));
      for (const part of parts) {
        const texts = Object.values<string>(part as Record<string, string>);
        expect(
          texts.reduce((sum, t) => sum + t.length, 0),
          seed,
        ).to.be.at.most(max);
        expect(
          texts.some((t) => LONE_SURROGATE.test(t)),
          seed,
        ).to.equal(false);
      }
      // No part but the last is left with room a whole next character would have filled.
      expect(parts.length, seed).to.be.at.most(
        Math.max(1, Math.ceil(fields.reduce((sum, [, t]) => sum + t.length, 0) / (max - 1))),
      );
    }
  });
});
