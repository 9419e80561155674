import { expect } from 'chai';
import { decidingProof, isPrefill, isVisitorIdentity, type VisitorIdentity } from '../src/index.js';

const google = { googleIdToken: 'eyJhbGciOiJSUzI1NiJ9.google' };
const jwt = { jwt: 'eyJhbGciOiJIUzI1NiJ9.jwt' };
const pair = { userId: 'user-1', userHash: 'a1b2c3' };

describe('decidingProof', () => {
  const cases: [string, VisitorIdentity, ReturnType<typeof decidingProof>][] = [
    ['googleIdToken over jwt and userId + userHash', { ...pair, ...jwt, ...google }, 'googleIdToken'],
    ['jwt over userId + userHash', { ...pair, ...jwt }, 'jwt'],
    ['userId + userHash alone', pair, 'userHash'],
    ['nothing for userId without userHash', { userId: 'user-1' }, null],
    ['nothing for a profile without proof', { name: 'Ada', email: 'ada@example.com' }, null],
  ];
  for (const [what, identity, proof] of cases) {
    it(`returns ${what}`, () => expect(decidingProof(identity)).to.equal(proof));
  }
});

describe('isVisitorIdentity', () => {
  const profile = {
    name: 'Ada',
    email: 'ada@example.com',
    phone: '+33100000000',
    attributes: { plan: 'pro', seats: 3 },
  };
  const valid: [string, unknown][] = [
    ['a googleIdToken', google],
    ['a jwt', jwt],
    ['userId + userHash', pair],
    ['several proofs (the precedence decides)', { ...google, ...jwt, ...pair }],
    ['a proof with the whole profile', { ...jwt, ...profile }],
    ['optional fields left undefined, as JSON would drop them', { ...jwt, name: undefined, attributes: undefined }],
    ['empty attributes', { ...jwt, attributes: {} }],
  ];
  for (const [what, identity] of valid) {
    it(`accepts ${what}`, () => expect(isVisitorIdentity(identity)).to.equal(true));
  }

  const invalid: [string, unknown][] = [
    ['a profile without proof', profile],
    ['an empty object', {}],
    ['userId without userHash', { userId: 'user-1' }],
    ['userHash without userId', { userHash: 'a1b2c3', ...jwt }],
    ['a blank proof', { jwt: '  ' }],
    ['a proof that is not a string', { jwt: 42 }],
    ['a blank profile field', { ...jwt, email: '' }],
    ['a profile field that is not a string', { ...jwt, name: ['Ada'] }],
    ['an unknown field', { ...jwt, admin: true }],
    ['a field of the session, not of the identity', { ...jwt, refreshToken: 'wrt_x' }],
    ['attributes that are an array', { ...jwt, attributes: ['plan'] }],
    ['attributes that are null', { ...jwt, attributes: null }],
    ['attributes that are a string', { ...jwt, attributes: 'plan=pro' }],
    ['null', null],
    ['an array', [jwt]],
    ['a string', 'eyJhbGciOiJIUzI1NiJ9.jwt'],
  ];
  for (const [what, identity] of invalid) {
    it(`refuses ${what}`, () => expect(isVisitorIdentity(identity)).to.equal(false));
  }
});

describe('isPrefill', () => {
  it('accepts an empty prefill and a full one', () => {
    expect(isPrefill({})).to.equal(true);
    expect(isPrefill({ name: 'Ada', email: 'ada@example.com', phone: '+33100000000' })).to.equal(true);
  });

  const invalid: [string, unknown][] = [
    ['an unknown field', { name: 'Ada', company: 'ACME' }],
    ['a proof (prefill is unverified)', { jwt: 'eyJ' }],
    ['a blank field', { email: ' ' }],
    ['a field that is not a string', { phone: 33100000000 }],
    ['null', null],
  ];
  for (const [what, prefill] of invalid) {
    it(`refuses ${what}`, () => expect(isPrefill(prefill)).to.equal(false));
  }
});
