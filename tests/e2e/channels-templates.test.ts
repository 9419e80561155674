import { expect } from 'chai';
import {
  ApiScope,
  PrincipalSigner,
  eventually,
  grpcClient,
  importSigningKey,
  newId,
  systemPrincipal,
  unary,
} from '@svc/kit';
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { InboxServiceClient, type Chat } from '@svc/proto/inbox/v1';
import { ChatAppATemplateSendRow } from '@svc/channels/dist/src/entities';
import { PENDING_SEND_MS, templatePayloadOf } from '@svc/channels/dist/src/domain/templates/template-sends';
import { FakeChatAppA, type ChatAppAAccount } from '../fakes/chat-app-a';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { CONNECT_A } from './channels-platform-fixtures';
import { dataOf, expectError } from './inbox-fixtures';

interface Template {
  id: string;
  channelId: string;
  platformTemplateId: string;
  name: string;
  language: string;
  category: string;
  status: string;
  rejectionReason: string;
  components: { type: string; format: string; text: string; buttons: { type: string; text: string; url: string }[] }[];
  headerParameterCount: number;
  bodyParameterCount: number;
}

const FIELDS = `id channelId platformTemplateId name language category status rejectionReason
  components { type format text buttons { type text url } } headerParameterCount bodyParameterCount`;
const LIST = `query($c: ID!, $s: ChatAppATemplateStatus) { chatAppATemplates(channelId: $c, status: $s) { ${FIELDS} } }`;
const GET = `query($id: ID!) { chatAppATemplate(id: $id) { ${FIELDS} } }`;
const CREATE = `mutation($c: ID!, $i: CreateChatAppATemplateInput!) { createChatAppATemplate(channelId: $c, input: $i) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $i: UpdateChatAppATemplateInput!) { updateChatAppATemplate(id: $id, input: $i) { ${FIELDS} } }`;
const DELETE = `mutation($id: ID!) { deleteChatAppATemplate(id: $id) { deleted id } }`;
const SYNC = `mutation($c: ID!) { syncChatAppATemplates(channelId: $c) { channelId created updated removed templates { ${FIELDS} } } }`;
const SEND = `mutation($chat: String!, $t: ID!, $h: [String!], $b: [String!], $btn: [ChatAppATemplateButtonParameterInput!]) {
  sendChatAppATemplateMessage(chatId: $chat, templateId: $t, headerParameters: $h, bodyParameters: $b, buttonParameters: $btn) {
    _id chatId text authorType deliveryStatus } }`;

const ORDER_READY = {
  name: 'order_ready',
  language: 'en_US',
  category: 'UTILITY',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', examples: ['#42'] },
    { type: 'BODY', text: 'Hi {{1}}, your order is ready at {{2}}.', examples: ['Ada', 'Main St'] },
    { type: 'FOOTER', text: 'Reply STOP to opt out' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'URL', text: 'Track', url: 'https://shop.example/track/{{1}}' },
        { type: 'QUICK_REPLY', text: 'Thanks' },
      ],
    },
  ],
};

/**
 * CHAT_APP_A templates through GraphQL (issue 16, decisions 0128 and 0129): CRUD reaches the fake platform in its own
 * shapes, the status webhook and the sync update them, and a template send creates the message outside the window
 * with the TEMPLATE payload recorded for the sender.
 */
describe('ChatAppA templates (whole stack over GraphQL, fake platform)', function () {
  const platform = new FakeChatAppA();
  let harness: StackHarness;
  let org: TestOrg;
  let key: string;
  let account: ChatAppAAccount;
  let channelId: string;
  let signer: PrincipalSigner;
  let inbox: InboxServiceClient;

  const call = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    harness.graphql<T>(query, variables, as);
  const gql = async <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    dataOf(await call<T>(query, variables, as));
  const create = async (input: Record<string, unknown> = ORDER_READY, channel = channelId, as = key) =>
    (await gql<{ createChatAppATemplate: Template }>(CREATE, { c: channel, i: input }, as)).createChatAppATemplate;

  before(async () => {
    await platform.start();
    harness = new StackHarness({}, {}, { platformUrls: { CHAT_APP_A_API_URL: platform.url } });
    await harness.start();
    org = await harness.newOrg('Templates');
    key = (await org.mintKey([ApiScope.CHANNELS_MANAGE, ApiScope.MESSAGES_SEND, ApiScope.MESSAGES_READ])).key;
    account = platform.account();
    channelId = await connect(org.id, account);
    signer = new PrincipalSigner(
      'channels',
      importSigningKey('channels', JSON.stringify(harness.stack.trustKeys.signing.channels)),
    );
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
  });
  after(async () => {
    inbox.close();
    await harness.stop();
    await platform.stop();
  });

  /** A CHAT_APP_A channel connected through the public operation (validated and subscribed at the fake). */
  async function connect(orgId: string, connected: ChatAppAAccount): Promise<string> {
    const owner = orgId === org.id ? key : (await harness.newOrg('Owner')).sessionToken;
    const answer = await gql<{ connectChatAppAChannel: { id: string } }>(
      CONNECT_A,
      { i: FakeChatAppA.credentials(connected) },
      owner,
    );
    return answer.connectChatAppAChannel.id;
  }

  /** A chat of a platform user on the channel, with no message from them (so the 24-hour window is closed). */
  async function openChat(channel = channelId, orgId = org.id): Promise<Chat> {
    return unary(
      inbox.openChat.bind(inbox),
      { channelId: channel, contact: { _id: newId(), name: 'Ada', phone: '+15550001111' }, channelType: 'CHAT_APP_A' },
      signer.metadata(systemPrincipal(orgId), 'inbox'),
    );
  }

  const approve = (template: Template) => platform.setTemplateStatus(account, template.platformTemplateId, 'APPROVED');
  const statusWebhook = (template: Template, event: string, reason?: string) =>
    platform.deliver(
      `${harness.url}/channels/in/${channelId}`,
      account,
      platform.templateStatusWebhook(
        account,
        { id: template.platformTemplateId, name: template.name, language: template.language },
        event,
        reason,
      ),
    );
  const statusOf = async (id: string) => (await gql<{ chatAppATemplate: Template }>(GET, { id })).chatAppATemplate;

  describe('createChatAppATemplate', () => {
    it('submits the template to the platform in its shape and keeps it PENDING with its parameter counts', async () => {
      const template = await create({ ...ORDER_READY, name: 'order_created' });
      expect(template).to.deep.include({
        channelId,
        name: 'order_created',
        language: 'en_US',
        category: 'UTILITY',
        status: 'PENDING',
        headerParameterCount: 1,
        bodyParameterCount: 2,
      });
      const posted = platform.received('POST', new RegExp(`^/${account.businessAccountId}/message_templates$`)).at(-1)!;
      expect(posted.json).to.deep.equal({
        name: 'order_created',
        language: 'en_US',
        category: 'UTILITY',
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', example: { header_text: ['#42'] } },
          {
            type: 'BODY',
            text: 'Hi {{1}}, your order is ready at {{2}}.',
            example: { body_text: [['Ada', 'Main St']] },
          },
          { type: 'FOOTER', text: 'Reply STOP to opt out' },
          {
            type: 'BUTTONS',
            buttons: [
              { type: 'URL', text: 'Track', url: 'https://shop.example/track/{{1}}' },
              { type: 'QUICK_REPLY', text: 'Thanks' },
            ],
          },
        ],
      });
      expect(posted.headers.authorization).to.equal(`Bearer ${account.accessToken}`);
      expect(template.platformTemplateId).to.equal(account.templates.at(-1)!.id);
    });

    it('refuses bad input naming the field, without calling the platform', async () => {
      const before = platform.requests.length;
      const cases: [Record<string, unknown>, string][] = [
        [{ ...ORDER_READY, name: 'Order Ready' }, 'input.name'],
        [{ ...ORDER_READY, language: 'english' }, 'input.language'],
        [{ ...ORDER_READY, components: [{ type: 'FOOTER', text: 'x' }] }, 'input.components'],
        [{ ...ORDER_READY, components: [{ type: 'BODY', text: 'Hi {{2}}' }] }, 'input.components.0.text'],
        [
          {
            ...ORDER_READY,
            components: [
              { type: 'BODY', text: 'x' },
              { type: 'BODY', text: 'y' },
            ],
          },
          'input.components.1.type',
        ],
      ];
      for (const [input, field] of cases) {
        const response = await call(CREATE, { c: channelId, i: input });
        expectError(response, 200, 'BAD_USER_INPUT');
        expect(response.body.errors?.[0]?.message, field).to.contain(field);
      }
      expectError(
        await call(CREATE, { c: channelId, i: { ...ORDER_READY, category: 'PROMO' } }),
        200,
        'BAD_USER_INPUT',
      );
      expect(platform.requests.length).to.equal(before);
    });

    it('refuses a second template of the same name and language as a conflict', async () => {
      await create({ ...ORDER_READY, name: 'twice' });
      expectError(await call(CREATE, { c: channelId, i: { ...ORDER_READY, name: 'twice' } }), 200, 'CONFLICT');
    });
  });

  describe('status webhook and reads', () => {
    it('moves a template by the platform’s message_template_status_update, with the rejection reason', async () => {
      const template = await create({ ...ORDER_READY, name: 'by_webhook' });
      expect((await statusWebhook(template, 'REJECTED', 'INVALID_FORMAT')).status).to.equal(200);
      const rejected = await eventuallyStatus(template.id, 'REJECTED');
      expect(rejected.rejectionReason).to.equal('INVALID_FORMAT');
      await statusWebhook(template, 'APPROVED');
      await eventuallyStatus(template.id, 'APPROVED');
      await statusWebhook(template, 'PAUSED', 'NONE');
      expect((await eventuallyStatus(template.id, 'PAUSED')).rejectionReason).to.equal('');
    });

    it('lists the channel’s templates, by status when asked', async () => {
      const approved = await create({ ...ORDER_READY, name: 'listed_approved' });
      await statusWebhook(approved, 'APPROVED');
      await eventuallyStatus(approved.id, 'APPROVED');
      const all = (await gql<{ chatAppATemplates: Template[] }>(LIST, { c: channelId })).chatAppATemplates;
      expect(all.map((t) => t.name)).to.include.members(['listed_approved', 'order_created']);
      const onlyApproved = (await gql<{ chatAppATemplates: Template[] }>(LIST, { c: channelId, s: 'APPROVED' }))
        .chatAppATemplates;
      expect(onlyApproved.every((t) => t.status === 'APPROVED')).to.equal(true);
      expect(onlyApproved.map((t) => t.name)).to.include('listed_approved');
    });
  });

  describe('updateChatAppATemplate and deleteChatAppATemplate', () => {
    it('edits the template at the platform and puts it back to review', async () => {
      const template = await create({ ...ORDER_READY, name: 'edited' });
      await statusWebhook(template, 'APPROVED');
      await eventuallyStatus(template.id, 'APPROVED');
      const updated = (
        await gql<{ updateChatAppATemplate: Template }>(UPDATE, {
          id: template.id,
          i: { components: [{ type: 'BODY', text: 'Hello {{1}}', examples: ['Ada'] }] },
        })
      ).updateChatAppATemplate;
      expect(updated).to.deep.include({ status: 'PENDING', bodyParameterCount: 1, headerParameterCount: 0 });
      const edit = platform.received('POST', new RegExp(`^/${template.platformTemplateId}$`)).at(-1)!;
      expect(edit.json).to.deep.equal({
        components: [{ type: 'BODY', text: 'Hello {{1}}', example: { body_text: [['Ada']] } }],
      });
      expectError(await call(UPDATE, { id: template.id, i: {} }), 200, 'BAD_USER_INPUT');
    });

    it('deletes at the platform by name and id, then here', async () => {
      const template = await create({ ...ORDER_READY, name: 'deleted_one' });
      const answer = (
        await gql<{ deleteChatAppATemplate: { deleted: boolean; id: string } }>(DELETE, { id: template.id })
      ).deleteChatAppATemplate;
      expect(answer).to.deep.equal({ deleted: true, id: template.id });
      const removal = platform
        .received('DELETE', new RegExp(`^/${account.businessAccountId}/message_templates$`))
        .at(-1)!;
      expect([removal.query.get('name'), removal.query.get('hsm_id')]).to.deep.equal([
        'deleted_one',
        template.platformTemplateId,
      ]);
      expect(account.templates.some((t) => t.name === 'deleted_one')).to.equal(false);
      expectError(await call(GET, { id: template.id }), 200, 'NOT_FOUND');
    });
  });

  describe('syncChatAppATemplates', () => {
    it('reads every template back through the platform’s pages: new, changed and gone ones', async () => {
      const local = await create({ ...ORDER_READY, name: 'sync_changed' });
      const gone = await create({ ...ORDER_READY, name: 'sync_gone' });
      platform.setTemplateStatus(account, local.platformTemplateId, 'APPROVED');
      account.templates.splice(
        account.templates.findIndex((t) => t.id === gone.platformTemplateId),
        1,
      );
      for (let n = 0; n < 120; n += 1) {
        account.templates.push({
          id: `9${String(n).padStart(8, '0')}`,
          name: `made_elsewhere_${n}`,
          language: 'de',
          category: 'MARKETING',
          status: n % 2 ? 'APPROVED' : 'REJECTED',
          components: [{ type: 'BODY', text: `Hallo {{1}} ${n}` }],
        });
      }
      const result = (
        await gql<{
          syncChatAppATemplates: { created: number; updated: number; removed: number; templates: Template[] };
        }>(SYNC, { c: channelId })
      ).syncChatAppATemplates;
      expect([result.created, result.removed]).to.deep.equal([120, 1]);
      expect(result.updated).to.be.at.least(1);
      expect(result.templates.find((t) => t.id === local.id)?.status).to.equal('APPROVED');
      expect(result.templates.some((t) => t.id === gone.id)).to.equal(false);
      expect(result.templates.find((t) => t.name === 'made_elsewhere_3')).to.deep.include({
        category: 'MARKETING',
        status: 'APPROVED',
        bodyParameterCount: 1,
      });
      expect(
        platform.received('GET', new RegExp(`^/${account.businessAccountId}/message_templates$`)).length,
      ).to.be.at.least(2);
      const again = (
        await gql<{ syncChatAppATemplates: { created: number; updated: number; removed: number } }>(SYNC, {
          c: channelId,
        })
      ).syncChatAppATemplates;
      expect(again).to.deep.include({ created: 0, updated: 0, removed: 0 });
    });
  });

  describe('sendChatAppATemplateMessage', () => {
    let approved: Template;
    /** Parameters that fit ORDER_READY: one header, two body, the Track button's URL suffix. */
    const validSend = (chat: string, t: string) => ({
      chat,
      t,
      h: ['#1'],
      b: ['a', 'b'],
      btn: [{ index: 0, value: 'x' }],
    });
    before(async () => {
      approved = await create({ ...ORDER_READY, name: 'send_me' });
      approve(approved);
      await statusWebhook(approved, 'APPROVED');
      await eventuallyStatus(approved.id, 'APPROVED');
    });

    it('creates the message as SYSTEM outside the 24-hour window and records the TEMPLATE payload for the sender', async () => {
      const chat = await openChat();
      const refused = await call(
        'mutation($c: String!) { sendMessage(chatId: $c, input: { text: "free form" }) { _id } }',
        { c: chat._id },
      );
      expect(refused.body.errors?.[0]?.extensions?.code).to.equal('FAILED_PRECONDITION');
      const sent = (
        await gql<{ sendChatAppATemplateMessage: { _id: string; chatId: string; text: string; authorType: string } }>(
          SEND,
          {
            chat: chat._id,
            t: approved.id,
            h: ['#42'],
            b: ['Ada', 'Main St'],
            btn: [{ index: 0, value: 'A42' }],
          },
        )
      ).sendChatAppATemplateMessage;
      expect(sent).to.deep.include({ chatId: chat._id, authorType: 'SYSTEM' });
      expect(sent.text).to.equal('Order #42\n\nHi Ada, your order is ready at Main St.\n\nReply STOP to opt out');
      const lookup = await templatePayloadOf(harness.stack.channels.dataSource, {
        messageId: sent._id,
        chatId: chat._id,
      });
      expect(lookup).to.deep.equal({
        kind: 'template',
        payload: {
          type: 'TEMPLATE',
          name: 'send_me',
          language: 'en_US',
          components: [
            { type: 'header', parameters: [{ type: 'text', text: '#42' }] },
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Ada' },
                { type: 'text', text: 'Main St' },
              ],
            },
            { type: 'button', subType: 'url', index: 0, parameters: [{ type: 'text', text: 'A42' }] },
          ],
        },
      });
      expect(
        await templatePayloadOf(harness.stack.channels.dataSource, { messageId: newId(), chatId: chat._id }),
      ).to.deep.equal({ kind: 'none' });
    });

    it('reaches the platform as a TEMPLATE message with its parameters, sent by the outbound sender', async () => {
      const user = '15550007777';
      await platform.deliver(
        `${harness.url}/channels/in/${channelId}`,
        account,
        platform.messagesWebhook(account, {
          messages: [platform.inboundMessage(user, 'text', { body: 'where is it?' })],
        }),
      );
      const chatId = await eventually(async () => {
        const client = grpcClient(ContactsServiceClient, `127.0.0.1:${harness.stack.contacts.grpcPort}`);
        try {
          const found = await unary(
            client.lookupContact.bind(client),
            { identifierType: IdentifierType.CHANNEL_USER_ID, value: user, channelIntegrationId: channelId },
            signer.metadata(systemPrincipal(org.id), 'contacts'),
          );
          return found.latestChatId || undefined;
        } finally {
          client.close();
        }
      });
      await gql(SEND, {
        ...validSend(chatId, approved.id),
        h: ['#7'],
        b: ['Bo', 'Dock 4'],
        btn: [{ index: 0, value: 'B7' }],
      });
      const sent = await eventually(async () => platform.sentTo(user).find((m) => m.body.type === 'template'));
      expect(sent.body.template).to.deep.equal({
        name: 'send_me',
        language: { policy: 'deterministic', code: 'en_US' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: '#7' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Bo' },
              { type: 'text', text: 'Dock 4' },
            ],
          },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'B7' }] },
        ],
      });
    });

    it('answers pending to the sender while a send of the chat is being recorded, and none once it is stale', async () => {
      const dataSource = harness.stack.channels.dataSource;
      const chatId = newId();
      const at = new Date();
      await dataSource.getRepository(ChatAppATemplateSendRow).insert({
        id: newId(at),
        orgId: org.id,
        chatId,
        messageId: null,
        templateId: approved.id,
        payload: { type: 'TEMPLATE', name: 'send_me', language: 'en_US', components: [] },
        requestedBy: 'API_KEY:test',
        createdAt: at,
      });
      const lookup = (when: Date) => templatePayloadOf(dataSource, { messageId: newId(), chatId }, when);
      expect(await lookup(at)).to.deep.equal({ kind: 'pending' });
      expect(await lookup(new Date(at.getTime() + PENDING_SEND_MS + 1000))).to.deep.equal({ kind: 'none' });
    });

    it('refuses wrong parameter counts, a missing URL parameter, and a template that is not approved', async () => {
      const chat = await openChat();
      const send = (variables: Record<string, unknown>) =>
        call(SEND, { ...validSend(chat._id, approved.id), ...variables });
      for (const [variables, field] of [
        [{ b: ['only one'] }, 'bodyParameters'],
        [{ h: [] }, 'headerParameters'],
        [{ btn: [] }, 'buttonParameters'],
        [
          {
            btn: [
              { index: 0, value: 'x' },
              { index: 1, value: 'y' },
            ],
          },
          'buttonParameters',
        ],
        [{ b: ['a', ' '] }, 'bodyParameters'],
      ] as const) {
        const response = await send(variables);
        expectError(response, 200, 'BAD_USER_INPUT');
        expect(response.body.errors?.[0]?.message).to.contain(field);
      }
      const pending = await create({ ...ORDER_READY, name: 'not_yet' });
      const response = await call(SEND, validSend(chat._id, pending.id));
      expectError(response, 200, 'FAILED_PRECONDITION');
      expect(response.body.errors?.[0]?.message).to.contain('PENDING');
    });

    it('refuses a chat of another channel', async () => {
      const otherChannel = await connect(org.id, platform.account());
      const chat = await openChat(otherChannel);
      const response = await call(SEND, validSend(chat._id, approved.id));
      expectError(response, 200, 'BAD_USER_INPUT');
    });
  });

  describe('scopes and org isolation', () => {
    it('refuses keys without CHANNELS_MANAGE (templates) or MESSAGES_SEND (template send)', async () => {
      const template = await create({ ...ORDER_READY, name: 'scoped' });
      const reader = (await org.mintKey([ApiScope.MESSAGES_SEND, ApiScope.MESSAGES_READ])).key;
      for (const [query, variables] of [
        [LIST, { c: channelId }],
        [GET, { id: template.id }],
        [CREATE, { c: channelId, i: { ...ORDER_READY, name: 'nope' } }],
        [UPDATE, { id: template.id, i: { category: 'MARKETING' } }],
        [DELETE, { id: template.id }],
        [SYNC, { c: channelId }],
      ] as const) {
        expectError(await call(query, variables, reader), 403, 'FORBIDDEN');
      }
      const manager = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
      const chat = await openChat();
      expectError(await call(SEND, { chat: chat._id, t: template.id, b: [] }, manager), 403, 'FORBIDDEN');
    });

    it('answers another org’s channel and template as unknown (NOT_FOUND)', async () => {
      const template = await create({ ...ORDER_READY, name: 'private' });
      const other = await harness.newOrg('Other');
      const otherKey = (await other.mintKey([ApiScope.CHANNELS_MANAGE, ApiScope.MESSAGES_SEND])).key;
      for (const [query, variables] of [
        [LIST, { c: channelId }],
        [GET, { id: template.id }],
        [UPDATE, { id: template.id, i: { category: 'MARKETING' } }],
        [DELETE, { id: template.id }],
        [SYNC, { c: channelId }],
        [CREATE, { c: channelId, i: { ...ORDER_READY, name: 'theirs' } }],
      ] as const) {
        const response = await call(query, variables, otherKey);
        expectError(response, 200, 'NOT_FOUND');
        expect(response.body.errors?.[0]?.message).to.match(/unknown/);
      }
      const chat = await openChat();
      expectError(await call(SEND, { chat: chat._id, t: template.id, b: [] }, otherKey), 200, 'NOT_FOUND');
      expect((await statusOf(template.id)).name).to.equal('private');
    });

    it('refuses malformed ids as bad input naming the argument', async () => {
      const response = await call(GET, { id: 'not-an-id' });
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(response.body.errors?.[0]?.message).to.contain('id');
      expectError(await call(LIST, { c: 'nope' }), 200, 'BAD_USER_INPUT');
    });
  });

  async function eventuallyStatus(id: string, status: string): Promise<Template> {
    return eventually(
      async () => {
        const template = await statusOf(id);
        return template.status === status ? template : undefined;
      },
      10_000,
      `template ${id} ${status}`,
    );
  }
});
