import { expect } from 'chai';
import { isId, newId } from '../src';

describe('kit.ids', () => {
  it('returns 24 lowercase hex characters', () => {
    expect(newId()).to.match(/^[0-9a-f]{24}$/);
  });

  it('returns distinct ids that sort by creation second', () => {
    const early = newId(new Date('2026-01-01T00:00:00Z'));
    const late = newId(new Date('2026-01-01T00:00:01Z'));
    expect(early < late).to.equal(true);
    expect(new Set(Array.from({ length: 1000 }, () => newId())).size).to.equal(1000);
  });

  it('recognises only 24-hex strings as ids', () => {
    expect(isId(newId())).to.equal(true);
    expect(isId('ABCDEF0123456789abcdef01')).to.equal(false);
    expect(isId('0123')).to.equal(false);
    expect(isId(42)).to.equal(false);
  });
});
