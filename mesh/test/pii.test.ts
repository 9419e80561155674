import { expect } from 'chai';
import { parse } from 'graphql';
import { maskPii } from '../src/plugins/pii-plugin';
import { piiFields, publicSchema } from '../src/schema';

const schema = publicSchema();
const pii = piiFields();

describe('gateway.maskPii', () => {
  it('finds the @pii fields of the public SDL', () => {
    expect([...pii]).to.include.members([
      'ChatContact.name',
      'ChatContact.email',
      'ChatContact.phone',
      'OrgTeamMember.email',
    ]);
    expect(pii.has('Chat._id')).to.equal(false);
  });

  it('nulls PII under aliases, fragments and lists, and leaves the rest', () => {
    const document = parse(`{
      searchChats { data { _id contact { ...C n: name } } }
    } fragment C on ChatContact { _id email phone }`);
    const data = {
      searchChats: { data: [{ _id: 'c1', contact: { _id: 'p1', email: 'a@b.c', phone: '+1', n: 'Ada' } }] },
    };
    maskPii(schema, document, undefined, data, pii);
    expect(data.searchChats.data[0]?.contact).to.deep.equal({ _id: 'p1', email: null, phone: null, n: null });
  });
});
