import { expect } from 'chai';
import { ChannelType } from '@svc/proto/channels/v1';
import { IdentifierType, type ContactInput } from '@svc/proto/contacts/v1';
import type { ReceiveMessageRequest } from '@svc/proto/inbox/v1';
import type { MediaUpload } from '@svc/proto/inbox/v1/media';
import { Conflict, Unavailable, createLogger, dropTestDatabase, newId, testEnv } from '@svc/kit';
import { ChannelsApp, channelsConfig } from '../src';
import type { InboundBackends } from '../src/domain/inbound/backends';
import { InboundMessages } from '../src/domain/inbound/messages';
import { PlatformInboundMessageRow } from '../src/entities';
import {
  PlatformCallError,
  type ConnectedChannel,
  type InboundMessage,
  type PlatformUser,
} from '../src/platforms/adapter';
import { TestAdapter } from './support/test-adapter';

/**
 * Contacts and the inbox as the consumer sees them, in memory: contacts hold identities (unique per org, as contacts
 * keeps them), the inbox one chat per contact, and `failNext` makes the next calls of a method fail.
 */
class FakeBackends {
  readonly identities = new Map<string, string>();
  readonly contacts: ContactInput[] = [];
  readonly received: ReceiveMessageRequest[] = [];
  readonly uploads: MediaUpload[] = [];
  readonly calls: string[] = [];
  private readonly failures = new Map<string, Error[]>();

  failNext(method: string, ...errors: Error[]): void {
    this.failures.set(method, errors);
  }

  private enter(method: string): void {
    this.calls.push(method);
    const error = this.failures.get(method)?.shift();
    if (error) throw error;
  }

  private key(type: IdentifierType, value: string, scope = ''): string {
    return `${type}|${scope}|${value}`;
  }

  lookupContact(_org: string, type: IdentifierType, value: string, channelId?: string) {
    this.enter('lookupContact');
    return Promise.resolve(this.identities.get(this.key(type, value, channelId)));
  }

  createContact(_org: string, input: ContactInput) {
    this.enter('createContact');
    if (input.phone && this.identities.has(this.key(IdentifierType.PHONE_NUMBER, input.phone)))
      return Promise.reject(new Conflict('another contact already has this phone number', { field: 'phone' }));
    const id = newId();
    this.contacts.push(input);
    this.hold(id, input);
    return Promise.resolve({ id });
  }

  updateContact(_org: string, id: string, input: ContactInput) {
    this.enter('updateContact');
    this.hold(id, input);
    return Promise.resolve({ id });
  }

  /** Someone else (another replica) created this identity meanwhile. */
  hold(id: string, input: ContactInput): void {
    if (input.phone) this.identities.set(this.key(IdentifierType.PHONE_NUMBER, input.phone), id);
    for (const identity of input.identities)
      this.identities.set(this.key(identity.type, identity.value, identity.channelIntegrationId), id);
  }

  openChat(_org: string, _channel: string, _type: string, contact: { _id: string }) {
    this.enter('openChat');
    return Promise.resolve({ _id: `chat-of-${contact._id}` });
  }

  createMedia(_org: string, _contactId: string, file: MediaUpload) {
    this.enter('createMedia');
    this.uploads.push(file);
    return Promise.resolve({ _id: newId() });
  }

  receiveMessage(_org: string, request: ReceiveMessageRequest) {
    this.enter('receiveMessage');
    this.received.push(request);
    return Promise.resolve({ _id: newId() });
  }
}

describe('channels: recording a platform message (decisions 0136-0138)', () => {
  let app: ChannelsApp;
  const adapter = new TestAdapter(ChannelType.CHAT_APP_C);
  const logger = createLogger('test', 'silent');
  const channel = (): ConnectedChannel => ({
    channelId: newId(),
    orgId: newId(),
    type: ChannelType.CHAT_APP_C,
    account: { externalId: 'x', displayName: 'x', details: {} },
    credentials: {},
    webhookSecret: '',
  });
  const message = (
    content: InboundMessage['content'],
    from: PlatformUser = { platformUserId: `u-${newId()}`, name: 'Ann' },
  ): InboundMessage => ({
    kind: 'message',
    platformMessageId: `pm-${newId()}`,
    from,
    sentAt: new Date(),
    content,
  });
  const recorder = (backends: FakeBackends) =>
    new InboundMessages(app.dataSource, backends as unknown as InboundBackends, logger);

  before(async () => {
    app = new ChannelsApp(channelsConfig(testEnv('channels')), { adapters: new Map() });
    await app.start();
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  it('retries a transient inbox failure without storing the media twice, then records nothing more', async () => {
    const backends = new FakeBackends();
    const messages = recorder(backends);
    const ch = channel();
    adapter.media.set('photo-1', { bytes: Buffer.from('bytes'), mimeType: 'image/jpeg', fileName: 'a.jpg' });
    const inbound = message({ type: 'MEDIA', media: [{ ref: 'photo-1' }], caption: 'look' });
    backends.failNext('receiveMessage', new Unavailable('inbox is down'));
    let failure: unknown;
    await messages.record(adapter, ch, inbound).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Unavailable);
    expect(await messages.record(adapter, ch, inbound)).to.equal(true);
    expect(await messages.record(adapter, ch, inbound)).to.equal(false);
    expect(backends.uploads).to.have.length(1);
    expect(backends.received).to.have.length(1);
    expect(backends.received[0]).to.deep.include({ text: 'look', externalId: inbound.platformMessageId });
    expect(backends.received[0]?.mediaIds).to.have.length(1);
  });

  it('uses the winner when another replica created the same platform user first', async () => {
    const backends = new FakeBackends();
    const ch = channel();
    const inbound = message({ type: 'TEXT', text: 'hi' });
    const winner = newId();
    // The lookup misses; by the time we create, the other replica holds the identity: contacts answers CONFLICT.
    const create = backends.createContact.bind(backends);
    backends.createContact = (org, input) => {
      backends.hold(winner, input);
      backends.createContact = create;
      return Promise.reject(new Conflict('another contact already has this channel user id', { field: 'identities' }));
    };
    await recorder(backends).record(adapter, ch, inbound);
    expect(backends.received[0]?.chatId).to.equal(`chat-of-${winner}`);
    expect(backends.contacts).to.have.length(0);
  });

  it("keeps the message's contact on its row, so erasing the contact finds it (decision 0170)", async () => {
    const backends = new FakeBackends();
    const ch = channel();
    const inbound = message({ type: 'TEXT', text: 'hi' });
    await recorder(backends).record(adapter, ch, inbound);
    const contactId = backends.received[0]?.chatId.replace('chat-of-', '');
    const row = await app.dataSource.getRepository(PlatformInboundMessageRow).findOneByOrFail({
      channelId: ch.channelId,
      platformMessageId: inbound.platformMessageId,
    });
    expect(row.contactId).to.be.a('string').and.equal(contactId);
  });

  it("adds the channel identity to the contact already holding the platform's phone, instead of a second contact", async () => {
    const backends = new FakeBackends();
    const ch = channel();
    const holder = newId();
    backends.hold(holder, { phone: '+15550001234', identities: [] });
    const inbound = message({ type: 'TEXT', text: 'hello' }, {
      platformUserId: '15550001234',
      name: 'Ann',
      phone: '+15550001234',
    } as InboundMessage['from']);
    await recorder(backends).record(adapter, ch, inbound);
    expect(backends.received[0]?.chatId).to.equal(`chat-of-${holder}`);
    expect(backends.calls).to.include('updateContact');
    expect(
      backends.identities.get(`${IdentifierType.CHANNEL_USER_ID}|${ch.channelId}|15550001234`),
      'the channel identity now names the holder',
    ).to.equal(holder);
  });

  it('records an attachment the platform refuses for good as a text saying so, and UNSUPPORTED content likewise', async () => {
    const backends = new FakeBackends();
    const messages = recorder(backends);
    const ch = channel();
    const gone = message({ type: 'MEDIA', media: [{ ref: 'expired' }], caption: 'my file' });
    const original = adapter.fetchMedia.bind(adapter);
    adapter.fetchMedia = () => {
      return Promise.reject(new PlatformCallError({ transient: false, code: '404', message: 'media expired' }));
    };
    try {
      await messages.record(adapter, ch, gone);
    } finally {
      adapter.fetchMedia = original;
    }
    await messages.record(adapter, ch, message({ type: 'UNSUPPORTED', description: 'sticker' }));
    expect(backends.received.map((r) => r.text)).to.deep.equal([
      'my file\n[Attachment not received: media expired]',
      '[Unsupported message: sticker]',
    ]);
    expect(backends.uploads).to.have.length(0);
  });
});
