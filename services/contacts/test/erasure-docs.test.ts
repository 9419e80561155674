import { expect } from 'chai';
import { ERASURE_PARTICIPANTS, documentedErasureKinds, documentedErasureServices } from '@svc/kit';
import { CONTACTS_KINDS } from '../src/domain/erasure/own-part';

describe('docs/erasure.md: the table of what each service erases', () => {
  it('names every participant, in the order of ERASURE_PARTICIPANTS', () => {
    expect(documentedErasureServices()).to.deep.equal([...ERASURE_PARTICIPANTS]);
  });

  it("lists contacts' kinds as its part counts them", () => {
    expect(documentedErasureKinds('contacts')).to.deep.equal([...CONTACTS_KINDS]);
  });
});
