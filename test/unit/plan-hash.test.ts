// canonicalJson must stay byte-identical to the `canonicalize` package it
// replaced (plan hashes already stored would otherwise stop matching).
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { canonicalJson, planHash } from '../../shared/domain/plan-hash.js';
import { planLinkRepair } from '../../shared/kinds/ledger-link-repair/plan.js';
import { bigRepairInput } from '../../bench/lib/repair-books.js';

const oracle = createRequire(import.meta.url)('canonicalize') as (value: unknown) => string | undefined;

describe('plan hash: canonical JSON', () => {
  const sparse = new Array<unknown>(3);
  sparse[0] = 1;
  sparse[2] = 3;
  const cases: unknown[] = [
    null,
    true,
    0,
    -0,
    1e21,
    1.5e-7,
    0.1,
    -12345,
    'a"b\\c\n\u0001é😀',
    [],
    {},
    { b: 1, a: [1, 'x', null, undefined, { z: 1, y: undefined }], c: { '€': 1, A: 2, a: 3, '\u00e9': 4 } },
    { d: new Date(Date.UTC(2025, 0, 2)), nested: { toJSON: () => ({ y: 2, x: 1 }) } },
    sparse,
    [undefined, Symbol('s')],
    { s: Symbol('s'), f: () => 1 },
    [() => 1],
    { kind: 'move', b: 1 },
    { b: 1, kind: 'move' },
    { kind: 'link', a: 2, b: 1 },
    Object.assign(Object.create(null) as object, { b: 2, a: 1 }),
    [{ constructor: 1 }, { a: 1 }],
    { x: [1, { toJSON: () => 'j' }] },
    { '10': 1, '9': 2, b: [true, false, null, 'z'] },
    [{ a: Number.MAX_SAFE_INTEGER, b: -5e-324 }],
  ];
  for (const [i, value] of cases.entries()) {
    it(`matches the canonicalize package on case ${i}`, () => {
      expect(canonicalJson(value)).to.equal(oracle(value));
    });
  }

  it('rejects what the package rejects', () => {
    expect(() => canonicalJson(undefined)).to.throw(TypeError, 'value is not JSON-serialisable');
    expect(() => canonicalJson({ a: Number.NaN })).to.throw('NaN is not allowed');
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).to.throw('Infinity is not allowed');
  });

  it('matches the package on a repair plan of 3,000 transactions', () => {
    const { plan } = planLinkRepair(bigRepairInput('org_hash', 3000));
    expect(plan).to.not.equal(null);
    expect(plan!.actions.length).to.be.greaterThan(100);
    expect(canonicalJson(plan)).to.equal(oracle(plan));
    expect(planHash(plan)).to.match(/^[0-9a-f]{64}$/);
  });
});
