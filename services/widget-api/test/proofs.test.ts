import { expect } from 'chai';
import { InvalidArgument } from '@svc/kit';
import { decidingProof } from '../src/domain/proofs';

describe('WidgetApi.decidingProof', () => {
  it('takes googleIdToken over jwt over userId + userHash', () => {
    expect(decidingProof({ googleIdToken: 'g', jwt: 'j', userId: 'u', userHash: 'h' })).to.equal('googleIdToken');
    expect(decidingProof({ jwt: 'j', userId: 'u', userHash: 'h' })).to.equal('jwt');
    expect(decidingProof({ userId: 'u', userHash: 'h' })).to.equal('userHash');
  });

  it('refuses userId without userHash and the reverse, naming the missing one, whatever else is sent', () => {
    const missingHash = () => decidingProof({ jwt: 'j', userId: 'u' });
    expect(missingHash).to.throw(InvalidArgument).with.property('details').that.deep.equals({ field: 'userHash' });
    const missingId = () => decidingProof({ userHash: 'h' });
    expect(missingId).to.throw(InvalidArgument).with.property('details').that.deep.equals({ field: 'userId' });
  });

  it('refuses a handshake without any proof', () => {
    expect(() => decidingProof({ name: 'Ada' })).to.throw(InvalidArgument);
  });
});
