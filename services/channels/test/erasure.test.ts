import { expect } from 'chai';
import { ChannelStatus, ChannelType } from '@svc/proto/channels/v1';
import {
  dropTestDatabase,
  newId,
  participantRoundTrip,
  testEnv,
  testErasure,
  type ErasureKindCount,
  documentedErasureKinds,
} from '@svc/kit';
import { ChannelsApp, channelsConfig } from '../src';
import { CHANNELS_CONTACT_ROWS } from '../src/domain/erasure';
import type { TemplateSendPayload } from '../src/domain/templates/vocabulary';
import {
  ChannelRow,
  ChatAppATemplateSendRow,
  OutboundDeliveryRow,
  OutboundPlatformMessageRow,
  PlatformInboundMessageRow,
} from '../src/entities';

describe('channels: erasing a contact (decision 0170)', () => {
  it('counts the kinds docs/erasure.md lists for it, in that order', () => {
    expect(CHANNELS_CONTACT_ROWS.kinds).to.deep.equal(documentedErasureKinds('channels'));
  });

  let app: ChannelsApp;

  before(async () => {
    app = new ChannelsApp(channelsConfig(testEnv('channels')), { adapters: new Map() });
    await app.start();
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const at = new Date();
  const manager = () => app.dataSource.manager;

  async function channelOf(orgId: string): Promise<string> {
    const id = newId();
    await manager().insert(ChannelRow, {
      id,
      orgId,
      type: ChannelType.CHAT_APP_B,
      status: ChannelStatus.ACTIVE,
      name: 'bot',
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    });
    return id;
  }

  async function inbound(channelId: string, contactId: string | null): Promise<void> {
    await manager().insert(PlatformInboundMessageRow, {
      id: newId(),
      channelId,
      platformMessageId: `pm-${newId()}`,
      mediaIds: [newId()],
      messageId: newId(),
      contactId,
      createdAt: at,
    });
  }

  /** One outbound message to the contact: its delivery, its platform id and, with `template`, its template send. */
  async function outbound(orgId: string, channelId: string, contactId: string, template = false): Promise<void> {
    const messageId = newId();
    const chatId = newId();
    await manager().insert(OutboundDeliveryRow, {
      id: messageId,
      orgId,
      channelId,
      chatId,
      contactId,
      state: 'SENT',
      attempts: 1,
      round: 1,
      queuedAt: at,
      nextAttemptAt: at,
      leaseUntil: null,
      attemptStartedAt: null,
      recipient: `user-${contactId}`,
      platformMessageIds: [`p-${messageId}`],
      sentAt: at,
      failureKind: null,
      failureCode: null,
      failureMessage: null,
      inboxReported: true,
      createdAt: at,
      updatedAt: at,
    });
    await manager().insert(OutboundPlatformMessageRow, {
      channelId,
      platformMessageId: `p-${messageId}`,
      messageId,
      orgId,
      chatId,
    });
    if (template)
      await manager().insert(ChatAppATemplateSendRow, {
        id: newId(),
        orgId,
        chatId,
        messageId,
        templateId: newId(),
        payload: { type: 'TEMPLATE', name: 'order_ready', parameters: ['Ann'] } as unknown as TemplateSendPayload,
        requestedBy: `MEMBER:${newId()}`,
        createdAt: at,
      });
  }

  const counts = (templates: number, deliveries: number, inbounds: number): ErasureKindCount[] => [
    { kind: 'template_sends', count: templates },
    { kind: 'outbound_deliveries', count: deliveries },
    { kind: 'inbound_messages', count: inbounds },
  ];

  it('previews, erases and confirms exactly what names the contact, nothing of another contact or org', async () => {
    const orgId = newId();
    const otherOrgId = newId();
    const contactId = newId();
    const otherContactId = newId();
    const channelId = await channelOf(orgId);
    const otherOrgChannelId = await channelOf(otherOrgId);
    await inbound(channelId, contactId);
    await inbound(channelId, contactId);
    await inbound(channelId, otherContactId);
    await inbound(channelId, null);
    await inbound(otherOrgChannelId, contactId);
    await outbound(orgId, channelId, contactId, true);
    await outbound(orgId, channelId, contactId);
    await outbound(orgId, channelId, otherContactId, true);
    await outbound(otherOrgId, otherOrgChannelId, contactId);

    expect(await CHANNELS_CONTACT_ROWS.count(manager(), orgId, contactId)).to.deep.equal(counts(1, 2, 2));
    const erased = await app.dataSource.transaction((tx) => CHANNELS_CONTACT_ROWS.erase(tx, orgId, contactId));
    expect(erased).to.deep.equal(counts(1, 2, 2));

    expect(await manager().countBy(OutboundDeliveryRow, { orgId, contactId })).to.equal(0);
    expect(await manager().countBy(OutboundPlatformMessageRow, { orgId })).to.equal(1);
    expect(await manager().countBy(ChatAppATemplateSendRow, { orgId })).to.equal(1);
    expect(await manager().countBy(PlatformInboundMessageRow, { channelId })).to.equal(2);
    // Another org's rows are not this erasure's, whatever contact id they carry.
    expect(await manager().countBy(OutboundDeliveryRow, { orgId: otherOrgId })).to.equal(1);
    expect(await manager().countBy(PlatformInboundMessageRow, { channelId: otherOrgChannelId })).to.equal(1);
    expect(await CHANNELS_CONTACT_ROWS.count(manager(), otherOrgId, contactId)).to.deep.equal(counts(0, 1, 1));
  });

  it('answers PreviewErasure, erases on contact.erase_requested and confirms what it erased', async () => {
    const orgId = newId();
    const contactId = newId();
    const channelId = await channelOf(orgId);
    await inbound(channelId, contactId);
    await outbound(orgId, channelId, contactId, true);
    const { preview, confirmed } = await participantRoundTrip(app, testErasure(orgId, contactId));
    expect(preview).to.deep.equal(counts(1, 1, 1));
    expect(confirmed).to.deep.equal(preview);
    expect(await manager().countBy(OutboundDeliveryRow, { orgId })).to.equal(0);
  });

  it('erases nothing the second time and confirms zeros', async () => {
    const orgId = newId();
    const contactId = newId();
    const channelId = await channelOf(orgId);
    await inbound(channelId, contactId);
    await outbound(orgId, channelId, contactId, true);
    const erase = () => app.dataSource.transaction((tx) => CHANNELS_CONTACT_ROWS.erase(tx, orgId, contactId));
    expect(await erase()).to.deep.equal(counts(1, 1, 1));
    expect(await erase()).to.deep.equal(counts(0, 0, 0));
    expect(await CHANNELS_CONTACT_ROWS.count(manager(), orgId, contactId)).to.deep.equal(counts(0, 0, 0));
  });
});
