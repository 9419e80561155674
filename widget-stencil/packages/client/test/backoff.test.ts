import { expect } from 'chai';
import { backoffDelay } from '../src/index.js';

describe('backoffDelay', () => {
  const options = { baseMs: 1000, maxMs: 30_000 };

  it('doubles the step per attempt up to the maximum', () => {
    const highest = (attempt: number) => backoffDelay(attempt, { ...options, random: () => 0.999999 });
    expect([0, 1, 2, 3, 4, 5, 6, 50].map(highest)).to.deep.equal([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('jitters within the upper half of the step', () => {
    expect(backoffDelay(2, { ...options, random: () => 0 })).to.equal(2000);
    expect(backoffDelay(2, { ...options, random: () => 0.5 })).to.equal(3000);
  });

  it('spreads clients dropped together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(3, options)));
    expect(delays.size).to.be.greaterThan(10);
    for (const delay of delays) expect(delay).to.be.within(4000, 8000);
  });
});
