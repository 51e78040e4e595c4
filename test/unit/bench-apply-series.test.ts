// The big repair's applies in the bench (bench/sections/repair-apply.ts): the
// first `--repeat` make `repair/apply_s_10k_scope`, and as many again, each
// with at least the loaded number of applies before it, make
// `repair/apply_s_10k_scope_loaded`; the first ones count towards the load.
import { expect } from 'chai';
import { applySeries } from '../../bench/sections/repair-apply.js';

/** An apply that answers its own position (0, 1, …) as its seconds. */
const position = (n: number): Promise<number> => Promise.resolve(n);

describe('bench: the repair apply series', () => {
  it('three first, the load made up to twenty, then three with twenty or more before each', async () => {
    expect(await applySeries(3, 20, position)).to.deep.equal({
      first: [0, 1, 2],
      others: [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
      loaded: [20, 21, 22],
    });
  });

  it('a load smaller than the first applies adds none: the loaded ones follow them', async () => {
    expect(await applySeries(3, 2, position)).to.deep.equal({
      first: [0, 1, 2],
      others: [],
      loaded: [3, 4, 5],
    });
    expect(await applySeries(1, 1, position)).to.deep.equal({ first: [0], others: [], loaded: [1] });
  });

  it('no load asked: no loaded applies', async () => {
    expect(await applySeries(2, 0, position)).to.deep.equal({ first: [0, 1], others: [], loaded: [] });
  });

  it('applies one after the other, never two at once', async () => {
    let running = 0;
    let most = 0;
    await applySeries(3, 5, async (n) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 1));
      running -= 1;
      return n;
    });
    expect(most).to.equal(1);
  });
});
