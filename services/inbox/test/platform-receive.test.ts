import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { rejection, systemPrincipal, unary, type Principal } from '@svc/kit';
import { AuthorType, MessageType, type ReceiveMessageRequest } from '@svc/proto/inbox/v1';
import { VisitorStack } from './visitor-stack';

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.alloc(17, 1),
]);

/** What a messaging platform's user sends besides text (issue 16): ReceiveMessage and CreateMedia for a channel. */
describe('inbox: messages from messaging platforms (SYSTEM callers)', () => {
  const stack = new VisitorStack();
  before(() => stack.start());
  after(() => stack.stop());

  const receive = (principal: Principal, request: Partial<ReceiveMessageRequest> & { chatId: string }) =>
    unary(stack.inbox.receiveMessage.bind(stack.inbox), { text: '', mediaIds: [], ...request }, stack.as(principal));

  it('records a location, a contact card and a button reply as LOCATION, CONTACT_CARD and BUTTONS', async () => {
    const { orgId, chat } = await stack.visitorChat();
    const system = systemPrincipal(orgId);
    const location = await receive(system, {
      chatId: chat._id,
      location: { latitude: 52.37, longitude: 4.89, name: 'Dam', address: 'Amsterdam' },
    });
    expect(location.type).to.equal(MessageType.LOCATION);
    expect(location.location).to.deep.include({ latitude: 52.37, longitude: 4.89, name: 'Dam', address: 'Amsterdam' });
    const card = await receive(system, {
      chatId: chat._id,
      contactCard: { name: 'Ann Lee', phone: '+31612345678', email: 'ann@example.com' },
    });
    expect(card.type).to.equal(MessageType.CONTACT_CARD);
    expect(card.contactCard).to.deep.include({ name: 'Ann Lee', phone: '+31612345678' });
    const reply = await receive(system, {
      chatId: chat._id,
      buttonReply: { id: 'p'.repeat(500), title: 'Yes, please' },
      externalId: 'platform-msg-1',
    });
    expect(reply.type).to.equal(MessageType.BUTTONS);
    expect(reply.text).to.equal('Yes, please');
    expect(reply.buttons).to.deep.equal([{ id: 'p'.repeat(500), title: 'Yes, please', url: undefined }]);
    expect(reply.authorType).to.equal(AuthorType.CONTACT);
  });

  it('refuses two kinds of content at once, and a location out of range, naming the field', async () => {
    const { orgId, chat } = await stack.visitorChat();
    const system = systemPrincipal(orgId);
    const both = await rejection(
      receive(system, {
        chatId: chat._id,
        location: { latitude: 1, longitude: 1 },
        contactCard: { name: 'x' },
      }),
    );
    expect(both.code).to.equal(status.INVALID_ARGUMENT);
    const far = await rejection(receive(system, { chatId: chat._id, location: { latitude: 91, longitude: 1 } }));
    expect(far.code).to.equal(status.INVALID_ARGUMENT);
    expect(far.details).to.match(/latitude/);
  });

  it("uploads media as the contact for a SYSTEM caller, which then only that contact's chat may carry", async () => {
    const { orgId, chat, agent } = await stack.visitorChat();
    const other = await stack.visitorChat(orgId);
    const system = systemPrincipal(orgId);
    const upload = (principal: Principal, contactId: string) =>
      unary(
        stack.media.createMedia.bind(stack.media),
        { file: { fileName: 'photo.png', declaredContentType: 'image/png', content: PNG }, contactId },
        stack.as(principal),
      );
    const media = await upload(system, chat.contact!._id);
    expect(media).to.include({ uploaderType: AuthorType.CONTACT, uploaderId: chat.contact!._id });
    expect((await rejection(receive(system, { chatId: other.chat._id, mediaIds: [media._id] }))).code).to.equal(
      status.NOT_FOUND,
    );
    const message = await receive(system, { chatId: chat._id, mediaIds: [media._id], text: 'look' });
    expect(message.type).to.equal(MessageType.MEDIA);
    for (const caller of [agent, other.visitor])
      expect((await rejection(upload(caller, chat.contact!._id))).code).to.equal(status.PERMISSION_DENIED);
  });
});
