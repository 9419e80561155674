import { expect } from 'chai';
import { ERASE_REQUESTED, newId } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { isPartnerEventKind } from '../src/domain/catalogue';
import { MAX_PAYLOAD_BYTES, payloadOf } from '../src/domain/fanout/fanout';
import { partnerEventOf } from '../src/domain/fanout/mapping';

const orgId = newId();
const contactId = newId();

function envelope(type: string, payload: Partial<Envelope>): Envelope {
  return Envelope.fromPartial({ id: newId(), type, orgId, occurredAt: '2026-11-25T12:00:00.000Z', ...payload });
}

const message = (type: string, fields: Record<string, unknown> = {}) =>
  envelope(type, {
    message: {
      messageId: newId(),
      chatId: newId(),
      text: 'hi',
      contactId,
      channelId: newId(),
      direction: 'IN',
      ...fields,
    } as Envelope['message'],
  });
const chat = (type: string) =>
  envelope(type, { chat: { chatId: newId(), contactId, assigneeId: '' } as Envelope['chat'] });

describe('partner fan-out: internal events to catalogue kinds', () => {
  it('maps each sent internal type onto its catalogue kind, and nothing else', () => {
    const cases: [Envelope, string | undefined][] = [
      [message('message.created'), 'message.created'],
      [message('message.updated'), 'message.updated'],
      [message('message.deleted'), 'message.deleted'],
      [message('message.status_changed'), 'message.status_changed'],
      [message('message.reaction_added'), undefined],
      [chat('chat.opened'), 'conversation.created'],
      [chat('chat.assigned'), 'conversation.assigned'],
      [chat('chat.unassigned'), 'conversation.assigned'],
      [chat('chat.closed'), 'conversation.closed'],
      [chat('chat.reopened'), 'conversation.reopened'],
      [chat('chat.read'), undefined],
      [envelope('conversation.created', { conversation: { conversationId: newId(), contactId } as never }), undefined],
      [envelope('contact.created', { contact: { contactId } }), 'contact.created'],
      [envelope('contact.updated', { contact: { contactId, externalId: 'x-1' } }), 'contact.updated'],
      [envelope(ERASE_REQUESTED, { erasure: { erasureId: newId(), contactId } as never }), 'contact.erased'],
      [envelope('contact.erase_confirmed', { erasure: { erasureId: newId(), contactId } as never }), undefined],
      [
        envelope('channel.created', { channel: { channelId: newId(), channelType: 'WEB', publicKey: 'pk' } }),
        'channel.connected',
      ],
      [
        envelope('channel.deleted', { channel: { channelId: newId(), channelType: 'WEB', publicKey: 'pk' } }),
        'channel.disconnected',
      ],
      [
        envelope('channel.updated', { channel: { channelId: newId(), channelType: 'WEB', publicKey: 'pk' } }),
        undefined,
      ],
    ];
    for (const [internal, kind] of cases) {
      const mapped = partnerEventOf(internal);
      expect([internal.type, mapped?.kind]).to.deep.equal([internal.type, kind]);
      if (mapped) expect(isPartnerEventKind(mapped.kind)).to.equal(true);
    }
  });

  it('never sends an internal note', () => {
    expect(partnerEventOf(message('message.created', { internal: true }))).to.equal(undefined);
    expect(partnerEventOf(message('message.updated', { internal: true }))).to.equal(undefined);
  });

  it('carries the client org and ids; names the contact for erasure except on contact.erased', () => {
    const created = partnerEventOf(message('message.created'));
    expect(created?.data).to.include({ clientOrgId: orgId, text: 'hi', contactId });
    expect(created?.contactId).to.equal(contactId);
    expect(partnerEventOf(message('message.deleted'))?.data.text).to.equal(null);
    const erased = partnerEventOf(envelope(ERASE_REQUESTED, { erasure: { erasureId: newId(), contactId } as never }));
    expect([erased?.contactId, erased?.data.contactId]).to.deep.equal([null, contactId]);
  });

  it('keeps a payload under 20 KB by cutting a long text, and says so', () => {
    const event = partnerEventOf(message('message.created', { text: 'é'.repeat(30_000) }));
    if (!event) throw new Error('not mapped');
    const body = payloadOf(event);
    expect(Buffer.byteLength(body)).to.be.at.most(MAX_PAYLOAD_BYTES);
    const parsed = JSON.parse(body) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(parsed).to.include({ type: 'message.created', timestamp: '2026-11-25T12:00:00.000Z' });
    expect(parsed.data).to.include({ textTruncated: true, clientOrgId: orgId });
    expect(String(parsed.data.text).length).to.be.greaterThan(5_000);
  });
});
