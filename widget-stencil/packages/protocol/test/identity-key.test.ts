import { expect } from 'chai';
import { identityKey } from '../src/identity.js';

describe('identityKey (wrappers compare user by value)', () => {
  it('is equal for identities equal by value, whatever the key order, at every level', () => {
    const first = { userId: 'u-1', userHash: 'h', attributes: { plan: 'pro', seats: 3 } };
    const rebuilt = { attributes: { seats: 3, plan: 'pro' }, userHash: 'h', userId: 'u-1' };
    expect(identityKey(rebuilt)).to.equal(identityKey(first));
  });

  it('differs when any field differs, and treats null and undefined as the same anonymous visitor', () => {
    const user = { userId: 'u-1', userHash: 'h', attributes: { plan: 'pro' } };
    expect(identityKey({ ...user, attributes: { plan: 'free' } })).not.to.equal(identityKey(user));
    expect(identityKey({ ...user, name: 'Ada' })).not.to.equal(identityKey(user));
    expect(identityKey(null)).to.equal(identityKey(undefined));
    expect(identityKey(null)).not.to.equal(identityKey(user));
  });
});
