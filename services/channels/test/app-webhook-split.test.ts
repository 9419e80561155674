import { expect } from 'chai';
import { ChannelType } from '@svc/proto/channels/v1';
import { channelBody, splitAppWebhook } from '../src/http/app-webhook-split';

const body = (value: unknown) => Buffer.from(JSON.stringify(value));
const messagesChange = (phoneNumberId: string, text: string) => ({
  field: 'messages',
  value: {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: '15550000000', phone_number_id: phoneNumberId },
    messages: [{ from: '447700900001', id: `wamid.${text}`, type: 'text', text: { body: text } }],
  },
});

/** The installation app's webhooks split by account (decision 0146). */
describe('channels: splitting an app-level webhook by account', () => {
  it('CHAT_APP_A: each change of an entry by its phone_number_id, keeping the entry around it', () => {
    const entry = { id: '900', changes: [messagesChange('111', 'one'), messagesChange('222', 'two')] };
    const split = splitAppWebhook(
      ChannelType.CHAT_APP_A,
      body({ object: 'whatsapp_business_account', entry: [entry] }),
    );
    expect(split.object).to.equal('whatsapp_business_account');
    expect(split.parts).to.deep.equal([
      { ref: { by: 'account', id: '111' }, entry: { id: '900', changes: [entry.changes[0]] } },
      { ref: { by: 'account', id: '222' }, entry: { id: '900', changes: [entry.changes[1]] } },
    ]);
  });

  it('CHAT_APP_A: a template status update (no number) by the business account id of its entry', () => {
    const change = { field: 'message_template_status_update', value: { event: 'APPROVED', message_template_id: 5 } };
    const split = splitAppWebhook(
      ChannelType.CHAT_APP_A,
      body({ object: 'whatsapp_business_account', entry: [{ id: 900, changes: [change] }] }),
    );
    expect(split.parts).to.deep.equal([
      { ref: { by: 'business_account', id: '900' }, entry: { id: 900, changes: [change] } },
    ]);
  });

  it('SOCIAL_APP_D: each entry by its page id, whole', () => {
    const entries = [
      { id: '31', time: 1, messaging: [{ sender: { id: '7' }, message: { mid: 'm1', text: 'a' } }] },
      { id: '32', time: 2, messaging: [{ sender: { id: '8' }, message: { mid: 'm2', text: 'b' } }] },
    ];
    const split = splitAppWebhook(ChannelType.SOCIAL_APP_D, body({ object: 'page', entry: entries }));
    expect(split.parts.map((p) => [p.ref.id, p.entry])).to.deep.equal([
      ['31', entries[0]],
      ['32', entries[1]],
    ]);
  });

  it('leaves out entries and changes naming no account, and throws on a body that is not the envelope', () => {
    const split = splitAppWebhook(
      ChannelType.CHAT_APP_A,
      body({ object: 'whatsapp_business_account', entry: [null, { changes: [{ field: 'x', value: {} }] }] }),
    );
    expect(split.parts).to.deep.equal([]);
    expect(() => splitAppWebhook(ChannelType.SOCIAL_APP_D, Buffer.from('not json'))).to.throw();
    expect(() => splitAppWebhook(ChannelType.SOCIAL_APP_D, body({ object: 'page' }))).to.throw(/entry/);
  });

  it("rebuilds a channel's share in the platform's envelope", () => {
    const entry = { id: '31', messaging: [] };
    expect(JSON.parse(channelBody('page', [entry]).toString())).to.deep.equal({ object: 'page', entry: [entry] });
  });
});
