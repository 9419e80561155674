import { expect } from 'chai';
import { InvalidArgument, decodeCursor, encodeCursor, newId } from '../src';

describe('kit.cursor', () => {
  it('round-trips a position', () => {
    const position = { at: new Date('2026-11-22T10:15:30.123Z'), id: newId() };
    expect(decodeCursor(encodeCursor(position))).to.deep.equal(position);
  });

  for (const garbage of [
    '',
    'not-a-cursor',
    Buffer.from('12:zz').toString('base64url'),
    Buffer.from('-1:0123456789abcdef01234567').toString('base64url'),
  ]) {
    it(`rejects ${JSON.stringify(garbage)} with BAD_USER_INPUT`, () => {
      expect(() => decodeCursor(garbage))
        .to.throw(InvalidArgument)
        .with.property('code', 'BAD_USER_INPUT');
    });
  }
});
