import { expect } from 'chai';
import {
  PrincipalSigner,
  eventually,
  grpcClient,
  importSigningKey,
  newId,
  now,
  systemPrincipal,
  unary,
} from '@svc/kit';
import { ChannelStatus, ChannelType } from '@svc/proto/channels/v1';
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { InboxServiceClient, MessageType, type Message } from '@svc/proto/inbox/v1';
import { MediaServiceClient } from '@svc/proto/inbox/v1/media';
import { ChannelRow, PlatformChannelRow } from '@svc/channels/dist/src/entities';
import type { PlatformChannelType } from '@svc/channels/dist/src/entities/platform-channel';
import { FakeChatAppA, type ChatAppAAccount } from '../fakes/chat-app-a';
import { FakeSocialAppD, type SocialAppDPage } from '../fakes/social-app-d';
import { StackHarness, type TestOrg } from '../support/stack-harness';

/**
 * Inbound from the messaging platforms (issue 16, decisions 0135-0138), through the whole stack: the fakes post
 * webhooks to `/channels/in/<id>` on the stack's one port as the platforms would; contacts, chats, messages and media
 * are read back from the services.
 */
describe('Channels inbound (whole stack, fake platforms)', function () {
  const chatAppA = new FakeChatAppA();
  const socialAppD = new FakeSocialAppD();
  let harness: StackHarness;
  let org: TestOrg;
  let signer: PrincipalSigner;
  let contacts: ContactsServiceClient;
  let inbox: InboxServiceClient;
  let media: MediaServiceClient;

  before(async () => {
    await Promise.all([chatAppA.start(), socialAppD.start()]);
    harness = new StackHarness({ CHAT_APP_A_API_URL: chatAppA.url, SOCIAL_APP_D_API_URL: socialAppD.url });
    await harness.start();
    org = await harness.newOrg('Inbound');
    const key = JSON.stringify(harness.stack.trustKeys.signing.channels);
    signer = new PrincipalSigner('channels', importSigningKey('channels', key));
    contacts = grpcClient(ContactsServiceClient, `127.0.0.1:${harness.stack.contacts.grpcPort}`);
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
    media = grpcClient(MediaServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
  });
  after(async () => {
    for (const client of [contacts, inbox, media]) client.close();
    await harness.stop();
    await Promise.all([chatAppA.stop(), socialAppD.stop()]);
  });

  const as = (audience: string, orgId = org.id) => signer.metadata(systemPrincipal(orgId), audience);
  const inboundUrl = (channelId: string) => `${harness.url}/channels/in/${channelId}`;

  /** A connected channel as the connect operations leave it: validated at the fake, secrets sealed. */
  async function connect(type: PlatformChannelType, credentials: Record<string, string>, orgId = org.id) {
    const channels = harness.stack.channels;
    const account = await channels.adapters.get(type)!.validate(credentials);
    const at = now();
    const id = newId(at);
    const webhookSecret = `verify-${id}`;
    await channels.dataSource.getRepository(ChannelRow).insert({
      id,
      orgId,
      type,
      status: ChannelStatus.ACTIVE,
      name: account.displayName,
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    });
    await channels.dataSource.getRepository(PlatformChannelRow).insert({
      id,
      orgId,
      type,
      connectedAccount: `${type}:${account.externalId}`,
      externalAccountId: account.externalId,
      account: JSON.stringify(account),
      credentialsSealed: channels.platformChannels!.sealCredentials(credentials, { orgId, id }),
      webhookSecretSealed: channels.platformChannels!.sealWebhookSecret(webhookSecret, { orgId, id }),
      aiAutoReply: false,
      authorizationError: '',
      connectedAt: at,
    });
    return { channelId: id, webhookSecret, url: inboundUrl(id) };
  }

  /** The contact of a platform user on a channel and its latest chat, once the consumer made them. */
  async function contactOf(channelId: string, platformUserId: string, orgId = org.id) {
    return eventually(async () => {
      const found = await unary(
        contacts.lookupContact.bind(contacts),
        { identifierType: IdentifierType.CHANNEL_USER_ID, value: platformUserId, channelIntegrationId: channelId },
        as('contacts', orgId),
      );
      return found.found && found.latestChatId ? found : undefined;
    });
  }

  async function messagesOf(chatId: string, orgId = org.id): Promise<Message[]> {
    const page = await unary(inbox.getMessages.bind(inbox), { chatId, input: { limit: 100 } }, as('inbox', orgId));
    return page.data;
  }

  /** Waits until the chat holds `count` messages, then answers them. */
  async function awaitMessages(chatId: string, count: number, orgId = org.id): Promise<Message[]> {
    await eventually(async () => (await messagesOf(chatId, orgId)).length >= count);
    return messagesOf(chatId, orgId);
  }

  describe('CHAT_APP_A (WhatsApp Cloud API shape)', () => {
    let account: ChatAppAAccount;
    let channel: { channelId: string; webhookSecret: string; url: string };
    before(async () => {
      account = chatAppA.account();
      channel = await connect(ChannelType.CHAT_APP_A, FakeChatAppA.credentials(account));
    });
    const deliver = (messages: Record<string, unknown>[], names: Record<string, string> = {}) =>
      chatAppA.deliver(channel.url, account, chatAppA.messagesWebhook(account, { messages, names }));

    it('answers the hub.* handshake with the verify token, and refuses another token', async () => {
      const ok = await chatAppA.verifyCallback(channel.url, channel.webhookSecret);
      expect([ok.status, ok.text]).to.deep.equal([200, ok.challenge]);
      expect((await chatAppA.verifyCallback(channel.url, 'guessed')).status).to.equal(403);
    });

    it('creates the contact (name and phone from the platform), its chat and the message once; a redelivery adds nothing', async () => {
      const user = '15550002001';
      const message = chatAppA.inboundMessage(user, 'text', { body: 'Hello from A' });
      const first = await deliver([message], { [user]: 'Ada Lovelace' });
      expect(first.status).to.equal(200);
      const { contactId, latestChatId } = await contactOf(channel.channelId, user);
      const [recorded] = await awaitMessages(latestChatId, 1);
      expect(recorded).to.deep.include({ text: 'Hello from A', type: MessageType.TEXT, authorId: contactId });
      const chat = await unary(inbox.getChat.bind(inbox), { chatId: latestChatId }, as('inbox'));
      expect(chat.channelId).to.equal(channel.channelId);
      expect(chat.contact).to.deep.include({ name: 'Ada Lovelace', phone: '+15550002001' });
      // The platform redelivers the same body, then a new one: only the new message is added.
      expect((await deliver([message], { [user]: 'Ada Lovelace' })).status).to.equal(200);
      await deliver([chatAppA.inboundMessage(user, 'text', { body: 'second' })]);
      const all = await awaitMessages(latestChatId, 2);
      expect(all.map((m) => m.text)).to.deep.equal(['Hello from A', 'second']);
      expect((await contactOf(channel.channelId, user)).contactId).to.equal(contactId);
    });

    it('fetches media from the platform into the media library as the contact upload, bytes and all', async () => {
      const user = '15550002002';
      const image = chatAppA.userMedia('image/jpeg', { caption: 'my receipt' });
      await deliver([chatAppA.inboundMessage(user, 'image', image)]);
      const { contactId, latestChatId } = await contactOf(channel.channelId, user);
      const [message] = await awaitMessages(latestChatId, 1);
      expect(message?.type).to.equal(MessageType.MEDIA);
      expect(message?.text).to.equal('my receipt');
      const [stored] = message!.media;
      expect(stored).to.deep.include({ uploaderId: contactId });
      const bytes = await (await fetch(new URL(stored!.url, harness.url))).text();
      expect(bytes).to.equal(chatAppA.mediaBytes(String(image.id)));
      const library = await unary(media.listChatMedia.bind(media), { chatId: latestChatId, input: {} }, as('inbox'));
      expect(library.data.map((m) => m._id)).to.deep.equal([stored!._id]);
    });

    it('carries a location, a contact card and a button reply as such; an unsupported kind as a text saying so', async () => {
      const user = '15550002003';
      await deliver([
        chatAppA.inboundMessage(user, 'location', {
          latitude: 52.37,
          longitude: 4.89,
          name: 'Dam',
          address: 'Amsterdam',
        }),
      ]);
      const { latestChatId } = await contactOf(channel.channelId, user);
      await awaitMessages(latestChatId, 1);
      await deliver([
        chatAppA.inboundMessage(user, 'contacts', [
          {
            name: { formatted_name: 'Ann Lee' },
            phones: [{ phone: '+31612345678' }],
            emails: [{ email: 'ann@example.com' }],
          },
        ]),
      ]);
      await awaitMessages(latestChatId, 2);
      await deliver([
        chatAppA.inboundMessage(user, 'interactive', {
          type: 'button_reply',
          button_reply: { id: 'yes-1', title: 'Yes' },
        }),
      ]);
      await awaitMessages(latestChatId, 3);
      await deliver([chatAppA.inboundMessage(user, 'unsupported', undefined)]);
      const [location, card, reply, unsupported] = await awaitMessages(latestChatId, 4);
      expect(location).to.deep.include({ type: MessageType.LOCATION });
      expect(location?.location).to.deep.include({ latitude: 52.37, longitude: 4.89, name: 'Dam' });
      expect(card).to.deep.include({ type: MessageType.CONTACT_CARD });
      expect(card?.contactCard).to.deep.include({ name: 'Ann Lee', phone: '+31612345678', email: 'ann@example.com' });
      expect(reply).to.deep.include({ type: MessageType.BUTTONS, text: 'Yes' });
      expect(reply?.buttons.map((b) => [b.id, b.title])).to.deep.equal([['yes-1', 'Yes']]);
      expect(unsupported?.type).to.equal(MessageType.TEXT);
      expect(unsupported?.text).to.match(/^\[Unsupported message: .+\]$/);
    });

    it('refuses a bad signature with 401 and stores nothing', async () => {
      const user = '15550002004';
      const body = JSON.stringify(
        chatAppA.messagesWebhook(account, { messages: [chatAppA.inboundMessage(user, 'text', { body: 'forged' })] }),
      );
      const forged = await fetch(channel.url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
      });
      expect(forged.status).to.equal(401);
      // A genuine message from the same user after it: the only one recorded.
      await deliver([chatAppA.inboundMessage(user, 'text', { body: 'genuine' })]);
      const { latestChatId } = await contactOf(channel.channelId, user);
      expect((await awaitMessages(latestChatId, 1)).map((m) => m.text)).to.deep.equal(['genuine']);
    });

    it('answers 404 for an unknown channel and a disconnected one', async () => {
      const body = chatAppA.messagesWebhook(account, {
        messages: [chatAppA.inboundMessage('15550002005', 'text', { body: 'nobody home' })],
      });
      expect((await chatAppA.deliver(inboundUrl(newId()), account, body)).status).to.equal(404);
      const other = await connect(ChannelType.CHAT_APP_A, FakeChatAppA.credentials(chatAppA.account()));
      await harness.stack.channels.dataSource
        .getRepository(ChannelRow)
        .update({ id: other.channelId }, { deletedAt: new Date() });
      expect((await chatAppA.deliver(other.url, account, body)).status).to.equal(404);
    });
  });

  describe('SOCIAL_APP_D (Messenger shape)', () => {
    let page: SocialAppDPage;
    let channel: { channelId: string; webhookSecret: string; url: string };
    before(async () => {
      page = socialAppD.page();
      channel = await connect(ChannelType.SOCIAL_APP_D, FakeSocialAppD.credentials(page));
    });
    const deliver = (events: Record<string, unknown>[]) =>
      socialAppD.deliver(channel.url, page, socialAppD.webhook(page, events));

    it('creates contact, chat and message once; a redelivery adds nothing; a postback is a button reply', async () => {
      const psid = '7000000000000001';
      const text = socialAppD.text(page, psid, 'Hi page');
      expect((await deliver([text])).status).to.equal(200);
      const { latestChatId } = await contactOf(channel.channelId, psid);
      await awaitMessages(latestChatId, 1);
      await deliver([text]);
      await deliver([socialAppD.postback(page, psid, 'Order status', 'ORDER_STATUS')]);
      const all = await awaitMessages(latestChatId, 2);
      expect(all.map((m) => [m.type, m.text])).to.deep.equal([
        [MessageType.TEXT, 'Hi page'],
        [MessageType.BUTTONS, 'Order status'],
      ]);
      expect(all[1]?.buttons.map((b) => b.id)).to.deep.equal(['ORDER_STATUS']);
    });

    it('fetches an attachment from the platform CDN into the media library', async () => {
      const psid = '7000000000000002';
      const url = socialAppD.userFile('application/pdf');
      await deliver([
        socialAppD.event(page, psid, {
          message: { mid: `m_${newId()}`, attachments: [{ type: 'file', payload: { url } }] },
        }),
      ]);
      const { latestChatId } = await contactOf(channel.channelId, psid);
      const [message] = await awaitMessages(latestChatId, 1);
      expect(message?.type).to.equal(MessageType.MEDIA);
      const bytes = await (await fetch(new URL(message!.media[0]!.url, harness.url))).text();
      expect(bytes).to.equal(socialAppD.fileBytes(url));
    });
  });
});
