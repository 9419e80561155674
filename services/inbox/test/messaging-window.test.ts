import { expect } from 'chai';
import { status, type ServiceError } from '@grpc/grpc-js';
import { apiKeyPrincipal, eventually, newId, rejection, systemPrincipal, unary, type Principal } from '@svc/kit';
import { DeliveryStatus } from '@svc/proto/inbox/v1';
import { MessageRow } from '../src/entities';
import { AGENT_SCOPES, VisitorStack } from './visitor-stack';

const HOUR = 3_600_000;

function reasonOf(error: ServiceError): unknown {
  return error.metadata.get('x-svc-error-reason')[0];
}

/**
 * A platform chat's messaging window (docs/decisions/0140) and the two SYSTEM RPCs of channels' delivery
 * (GetMessageForDelivery, RequeueFailedMessage: docs/decisions/0142).
 */
describe('inbox: platform chats (channel type, messaging window, delivery RPCs)', () => {
  const stack = new VisitorStack();
  before(() => stack.start());
  after(() => stack.stop());

  async function platformChat(channelType: string, orgId = newId()) {
    const contactId = newId();
    const chat = await unary(
      stack.inbox.openChat.bind(stack.inbox),
      { channelId: newId(), contact: { _id: contactId, name: 'Platform user' }, channelType },
      stack.as(systemPrincipal(orgId)),
    );
    return { orgId, chat, system: systemPrincipal(orgId), agent: apiKeyPrincipal(orgId, AGENT_SCOPES) };
  }

  const send = (
    principal: Principal,
    chatId: string,
    text: string,
    extra: { internal?: boolean; template?: boolean } = {},
  ) =>
    unary(
      stack.inbox.sendMessage.bind(stack.inbox),
      { chatId, input: { text, internal: extra.internal ?? false }, platformTemplate: extra.template },
      stack.as(principal),
    );

  /** The contact's message, written `hoursAgo` hours ago. */
  async function contactWrote(system: Principal, chatId: string, hoursAgo: number) {
    const message = await stack.receive(system, chatId, `hello ${newId()}`);
    await stack.app.dataSource
      .getRepository(MessageRow)
      .update({ id: message._id }, { createdAt: new Date(Date.now() - hoursAgo * HOUR) });
    return message;
  }

  it('refuses a free-form send on CHAT_APP_A and SOCIAL_APP_D before the contact wrote, with reason MESSAGING_WINDOW_CLOSED', async () => {
    for (const type of ['CHAT_APP_A', 'SOCIAL_APP_D']) {
      const { chat, agent, system } = await platformChat(type);
      const refused = await rejection(send(agent, chat._id, 'hi'));
      expect([refused.code, reasonOf(refused)], type).to.deep.equal([
        status.FAILED_PRECONDITION,
        'MESSAGING_WINDOW_CLOSED',
      ]);
      expect(refused.details).to.match(/template/);
      expect((await send(agent, chat._id, 'a note', { internal: true })).internal, 'notes pass').to.equal(true);
      const template = await send(system, chat._id, 'template text', { template: true });
      expect(template.deliveryStatus, 'a template passes').to.equal(DeliveryStatus.QUEUED);
    }
  });

  it('lets a send through within 24 hours of the contact’s last message and refuses it after', async () => {
    const { chat, agent, system } = await platformChat('CHAT_APP_A');
    const inbound = await contactWrote(system, chat._id, 23);
    expect((await send(agent, chat._id, 'within')).deliveryStatus).to.equal(DeliveryStatus.QUEUED);
    await stack.app.dataSource
      .getRepository(MessageRow)
      .update({ id: inbound._id }, { createdAt: new Date(Date.now() - 25 * HOUR) });
    expect(reasonOf(await rejection(send(agent, chat._id, 'after')))).to.equal('MESSAGING_WINDOW_CLOSED');
    await contactWrote(system, chat._id, 0);
    expect((await send(agent, chat._id, 'reopened')).text).to.equal('reopened');
  });

  it('applies no window to WEB, CHAT_APP_B and CHAT_APP_C chats, and WEB is the default', async () => {
    for (const type of ['', 'WEB', 'CHAT_APP_B', 'CHAT_APP_C']) {
      const { chat, agent } = await platformChat(type);
      expect((await send(agent, chat._id, 'hi')).text, type || 'unset').to.equal('hi');
    }
  });

  it('refuses an unknown channel type naming the field, and platformTemplate from anyone but a service', async () => {
    const refused = await rejection(
      unary(
        stack.inbox.openChat.bind(stack.inbox),
        { channelId: newId(), contact: { _id: newId() }, channelType: 'FAX' },
        stack.as(systemPrincipal(newId())),
      ),
    );
    expect([refused.code, refused.metadata.get('x-svc-error-field')[0]]).to.deep.equal([
      status.INVALID_ARGUMENT,
      'channelType',
    ]);
    const { chat, agent } = await platformChat('CHAT_APP_A');
    const forbidden = await rejection(send(agent, chat._id, 'sneaky', { template: true }));
    expect([forbidden.code, forbidden.metadata.get('x-svc-error-field')[0]]).to.deep.equal([
      status.PERMISSION_DENIED,
      'platformTemplate',
    ]);
  });

  it('GetMessageForDelivery answers the message with its chat’s channel, kind and contact, to services of its org only', async () => {
    const { chat, agent, system } = await platformChat('CHAT_APP_B');
    const sent = await send(agent, chat._id, 'to deliver');
    const found = await unary(
      stack.inbox.getMessageForDelivery.bind(stack.inbox),
      { messageId: sent._id },
      stack.as(system),
    );
    expect([found.message?.text, found.channelId, found.channelType, found.contactId]).to.deep.equal([
      'to deliver',
      chat.channelId,
      'CHAT_APP_B',
      chat.contact?._id,
    ]);
    const elsewhere = await rejection(
      unary(
        stack.inbox.getMessageForDelivery.bind(stack.inbox),
        { messageId: sent._id },
        stack.as(systemPrincipal(newId())),
      ),
    );
    expect(elsewhere.code).to.equal(status.NOT_FOUND);
    const agentCall = await rejection(
      unary(stack.inbox.getMessageForDelivery.bind(stack.inbox), { messageId: sent._id }, stack.as(agent)),
    );
    expect(agentCall.code).to.equal(status.PERMISSION_DENIED);
  });

  describe('RequeueFailedMessage', () => {
    const requeue = (principal: Principal, messageId: string, platformTemplate = false, dryRun = false) =>
      unary(
        stack.inbox.requeueFailedMessage.bind(stack.inbox),
        { messageId, platformTemplate, dryRun },
        stack.as(principal),
      );
    const fail = (principal: Principal, chatId: string, messageId: string) =>
      unary(
        stack.inbox.updateDeliveryStatus.bind(stack.inbox),
        { chatId, messageIds: [messageId], status: DeliveryStatus.FAILED, failureReason: 'platform said no' },
        stack.as(principal),
      );

    it('moves a FAILED message back to QUEUED once, with message.status_changed, and answers a QUEUED one as it is', async () => {
      const { chat, agent, system } = await platformChat('CHAT_APP_B');
      const sent = await send(agent, chat._id, 'to retry');
      await fail(system, chat._id, sent._id);
      expect((await requeue(system, sent._id, false, true)).deliveryStatus, 'a dry run').to.equal(
        DeliveryStatus.FAILED,
      );
      const queued = await requeue(system, sent._id);
      expect(queued.deliveryStatus).to.equal(DeliveryStatus.QUEUED);
      expect((await requeue(system, sent._id)).deliveryStatus).to.equal(DeliveryStatus.QUEUED);
      await eventually(async () =>
        stack
          .eventsOf(chat._id)
          .some((e) => e.type === 'message.status_changed' && e.message?.deliveryStatus === DeliveryStatus.QUEUED),
      );
      const statuses = stack
        .eventsOf(chat._id)
        .filter((e) => e.type === 'message.status_changed')
        .map((e) => e.message?.deliveryStatus);
      expect(statuses).to.deep.equal([DeliveryStatus.FAILED, DeliveryStatus.QUEUED]);
    });

    it('refuses what cannot be sent again, each with its reason', async () => {
      const { chat, agent, system } = await platformChat('CHAT_APP_A');
      await contactWrote(system, chat._id, 1);
      const sent = await send(agent, chat._id, 'delivered already');
      await unary(
        stack.inbox.updateDeliveryStatus.bind(stack.inbox),
        { chatId: chat._id, messageIds: [sent._id], status: DeliveryStatus.SENT },
        stack.as(system),
      );
      const note = await send(agent, chat._id, 'note', { internal: true });
      const inbound = await stack.receive(system, chat._id, 'from the contact');
      const deleted = await send(agent, chat._id, 'to delete');
      await fail(system, chat._id, deleted._id);
      await unary(stack.inbox.deleteMessage.bind(stack.inbox), { messageId: deleted._id }, stack.as(agent));
      const web = await platformChat('WEB');
      const webMessage = await send(web.agent, web.chat._id, 'web');
      await fail(web.system, web.chat._id, webMessage._id);
      const cases: [Principal, string, string][] = [
        [system, sent._id, 'NOT_FAILED'],
        [system, note._id, 'INTERNAL_NOTE'],
        [system, inbound._id, 'NOT_OUTBOUND'],
        [system, deleted._id, 'MESSAGE_DELETED'],
        [web.system, webMessage._id, 'NOT_A_PLATFORM_CHAT'],
      ];
      for (const [principal, messageId, reason] of cases) {
        const refused = await rejection(requeue(principal, messageId));
        expect([refused.code, reasonOf(refused)], reason).to.deep.equal([status.FAILED_PRECONDITION, reason]);
      }
      expect((await rejection(requeue(agent, sent._id))).code).to.equal(status.PERMISSION_DENIED);
      expect((await rejection(requeue(systemPrincipal(newId()), sent._id))).code).to.equal(status.NOT_FOUND);
    });

    it('refuses a free-form message outside the window, but not a template', async () => {
      const { chat, agent, system } = await platformChat('CHAT_APP_A');
      const inbound = await contactWrote(system, chat._id, 1);
      const sent = await send(agent, chat._id, 'late');
      await fail(system, chat._id, sent._id);
      await stack.app.dataSource
        .getRepository(MessageRow)
        .update({ id: inbound._id }, { createdAt: new Date(Date.now() - 30 * HOUR) });
      expect(reasonOf(await rejection(requeue(system, sent._id)))).to.equal('MESSAGING_WINDOW_CLOSED');
      expect((await requeue(system, sent._id, true)).deliveryStatus).to.equal(DeliveryStatus.QUEUED);
    });
  });
});
