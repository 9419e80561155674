import { expect } from 'chai';
import { status, type Metadata } from '@grpc/grpc-js';
import {
  ApiScope,
  apiKeyPrincipal,
  dropTestDatabase,
  grpcClient,
  newId,
  rejection,
  systemPrincipal,
  testEnv,
  unary,
  type Principal,
  callerMetadata,
} from '@svc/kit';
import { ChatField, InboxServiceClient } from '@svc/proto/inbox/v1';
import { LabelServiceClient } from '@svc/proto/inbox/v1/labels';
import { InboxApp, inboxConfig } from '../src';

describe('InboxService chat labels', () => {
  let app: InboxApp;
  let inbox: InboxServiceClient;
  let labels: LabelServiceClient;
  const as = (principal: Principal): Promise<Metadata> => callerMetadata(principal, 'inbox');

  before(async () => {
    app = new InboxApp(inboxConfig(testEnv('inbox')));
    await app.start();
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${app.grpcPort}`);
    labels = grpcClient(LabelServiceClient, `127.0.0.1:${app.grpcPort}`);
  });

  after(async () => {
    inbox.close();
    labels.close();
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  /** A fresh org with a chat and an active label. */
  async function world() {
    const orgId = newId();
    const chat = await unary(
      inbox.openChat.bind(inbox),
      { channelId: newId(), contact: { _id: newId(), name: 'Ada' } },
      as(systemPrincipal(orgId)),
    );
    const labelId = await newLabel(orgId);
    return { orgId, chatId: chat._id, labelId };
  }

  async function newLabel(orgId: string): Promise<string> {
    const label = await unary(
      labels.createLabel.bind(labels),
      { name: `l-${newId()}` },
      as(apiKeyPrincipal(orgId, [ApiScope.CONVERSATIONS_MANAGE])),
    );
    return label._id;
  }

  const addLabel = (principal: Principal, chatId: string, labelId: string) =>
    unary(inbox.addChatLabel.bind(inbox), { chatId, labelId }, as(principal));
  const setLabels = (orgId: string, chatId: string, value: unknown) =>
    unary(
      inbox.updateChatField.bind(inbox),
      { chatId, field: ChatField.LABELS, valueJson: JSON.stringify(value) },
      as(apiKeyPrincipal(orgId, [ApiScope.CONVERSATIONS_MANAGE])),
    );
  /** The failure's status and the argument it names. */
  const failure = async (call: Promise<unknown>) => {
    const error = await rejection(call);
    return { code: error.code, field: error.metadata?.get('x-svc-error-field')[0] };
  };

  describe('InboxService.UpdateChatField LABELS', () => {
    it('names input.value when the value is malformed, names an unknown label or applies an archived one', async () => {
      const { orgId, chatId, labelId } = await world();
      await unary(
        labels.archiveLabel.bind(labels),
        { labelId },
        as(apiKeyPrincipal(orgId, [ApiScope.CONVERSATIONS_MANAGE])),
      );
      expect(await failure(setLabels(orgId, chatId, 'x'))).to.deep.equal({
        code: status.INVALID_ARGUMENT,
        field: 'input.value',
      });
      expect(await failure(setLabels(orgId, chatId, [newId()]))).to.deep.equal({
        code: status.NOT_FOUND,
        field: 'input.value',
      });
      expect(await failure(setLabels(orgId, chatId, [labelId]))).to.deep.equal({
        code: status.FAILED_PRECONDITION,
        field: 'input.value',
      });
    });
  });

  describe('InboxService.AddChatLabel', () => {
    it('returns the chat with the label, and the same chat when the label is added again', async () => {
      const { orgId, chatId, labelId } = await world();
      const other = await newLabel(orgId);
      expect((await addLabel(systemPrincipal(orgId), chatId, labelId)).labelIds).to.deep.equal([labelId]);
      expect((await addLabel(systemPrincipal(orgId), chatId, labelId)).labelIds).to.deep.equal([labelId]);
      expect((await addLabel(systemPrincipal(orgId), chatId, other)).labelIds).to.deep.equal([labelId, other]);
      const read = await unary(
        inbox.getChat.bind(inbox),
        { chatId },
        as(apiKeyPrincipal(orgId, [ApiScope.MESSAGES_READ])),
      );
      expect(read.labelIds).to.deep.equal([labelId, other]);
    });

    it('returns the chat with the label once to each of concurrent adds of the same label', async () => {
      const { orgId, chatId, labelId } = await world();
      const chats = await Promise.all(
        Array.from({ length: 5 }, () => addLabel(systemPrincipal(orgId), chatId, labelId)),
      );
      expect(chats.map((c) => c.labelIds)).to.deep.equal(Array.from({ length: 5 }, () => [labelId]));
    });

    it('answers PERMISSION_DENIED to an API key, whatever its scopes', async () => {
      const { orgId, chatId, labelId } = await world();
      const key = apiKeyPrincipal(orgId, [ApiScope.CONVERSATIONS_MANAGE, ApiScope.MESSAGES_READ]);
      expect((await rejection(addLabel(key, chatId, labelId))).code).to.equal(status.PERMISSION_DENIED);
    });

    it('answers FAILED_PRECONDITION for an archived label the chat does not carry yet', async () => {
      const { orgId, chatId, labelId } = await world();
      await unary(
        labels.archiveLabel.bind(labels),
        { labelId },
        as(apiKeyPrincipal(orgId, [ApiScope.CONVERSATIONS_MANAGE])),
      );
      expect((await rejection(addLabel(systemPrincipal(orgId), chatId, labelId))).code).to.equal(
        status.FAILED_PRECONDITION,
      );
    });

    it("answers NOT_FOUND for an unknown label, another org's label or chat; INVALID_ARGUMENT for a malformed id", async () => {
      const { orgId, chatId } = await world();
      const elsewhere = await world();
      const system = systemPrincipal(orgId);
      expect(await failure(addLabel(system, chatId, newId()))).to.deep.equal({
        code: status.NOT_FOUND,
        field: 'labelId',
      });
      expect((await rejection(addLabel(system, chatId, elsewhere.labelId))).code).to.equal(status.NOT_FOUND);
      expect((await rejection(addLabel(system, elsewhere.chatId, elsewhere.labelId))).code).to.equal(status.NOT_FOUND);
      expect((await rejection(addLabel(system, chatId, 'vip'))).code).to.equal(status.INVALID_ARGUMENT);
    });

    it('answers FAILED_PRECONDITION when the chat already carries 20 labels', async () => {
      const { orgId, chatId } = await world();
      const twenty = await Promise.all(Array.from({ length: 20 }, () => newLabel(orgId)));
      await setLabels(orgId, chatId, twenty);
      const one = await newLabel(orgId);
      expect((await rejection(addLabel(systemPrincipal(orgId), chatId, one))).code).to.equal(
        status.FAILED_PRECONDITION,
      );
    });
  });

  describe('InboxService.FindChats / LabelService.FindLabels', () => {
    it("answers only the org's chats and labels among those asked, to services only", async () => {
      const own = await world();
      const elsewhere = await world();
      const system = as(systemPrincipal(own.orgId));
      const chats = await unary(
        inbox.findChats.bind(inbox),
        { chatIds: [own.chatId, elsewhere.chatId, newId(), 'not-an-id'] },
        system,
      );
      expect(chats.chatIds).to.deep.equal([own.chatId]);
      const found = await unary(
        labels.findLabels.bind(labels),
        { labelIds: [elsewhere.labelId, own.labelId, newId()] },
        system,
      );
      expect(found.labelIds).to.deep.equal([own.labelId]);
      const key = as(apiKeyPrincipal(own.orgId, [ApiScope.MESSAGES_READ, ApiScope.CONVERSATIONS_MANAGE]));
      expect((await rejection(unary(inbox.findChats.bind(inbox), { chatIds: [own.chatId] }, key))).code).to.equal(
        status.PERMISSION_DENIED,
      );
    });

    it('answers only the chats of the channel kind asked for, when one is (decision 0155)', async () => {
      const { orgId, chatId: web } = await world();
      const system = as(systemPrincipal(orgId));
      const platform = await unary(
        inbox.openChat.bind(inbox),
        { channelId: newId(), contact: { _id: newId(), name: 'Ada' }, channelType: 'CHAT_APP_A' },
        system,
      );
      const find = (channelType: string) =>
        unary(inbox.findChats.bind(inbox), { chatIds: [web, platform._id], channelType }, system);
      expect((await find('CHAT_APP_A')).chatIds).to.deep.equal([platform._id]);
      expect((await find('WEB')).chatIds).to.deep.equal([web]);
      expect((await rejection(find('FAX'))).code).to.equal(status.INVALID_ARGUMENT);
    });
  });
});
