import { expect } from 'chai';
import { ApiScope, newId } from '@svc/kit';
import type { FakeBot } from '../fakes/chat-app-b';
import type { TestOrg } from '../support/stack-harness';
import { CONNECT_B, CONNECT_C, DISCONNECT, PlatformStack, type ChannelView } from './channels-platform-fixtures';
import { dataOf, expectError } from './inbox-fixtures';

const RIGHTS = `isAnonymous canManageChat canDeleteMessages canManageVideoChats canRestrictMembers canPromoteMembers
  canChangeInfo canInviteUsers canPostStories canEditStories canDeleteStories canPostMessages canEditMessages
  canPinMessages canManageTopics`;
const FIELDS = `channelId languageCode name description shortDescription commands { command description }
  commandsScope { type chatId userId } menuButton { type text webAppUrl } defaultAdminRights { ${RIGHTS} }
  defaultChannelAdminRights { ${RIGHTS} }`;
const READ = `query($c: ID!, $l: String, $s: ChatAppBBotCommandScopeInput) {
  channelChatAppBBotSettings(channelId: $c, languageCode: $l, commandsScope: $s) { ${FIELDS} } }`;

interface Settings {
  channelId: string;
  languageCode: string;
  name: string;
  description: string;
  shortDescription: string;
  commands: { command: string; description: string }[];
  commandsScope: { type: string; chatId: string | null; userId: string | null };
  menuButton: { type: string; text: string | null; webAppUrl: string | null };
  defaultAdminRights: Record<string, boolean>;
  defaultChannelAdminRights: Record<string, boolean>;
}

describe('ChatAppB bot settings (whole stack over HTTP, against the fake platform)', function () {
  const platforms = new PlatformStack();
  const fake = platforms.b;
  let org: TestOrg;
  let key: string;
  let bot: FakeBot;
  let channelId: string;

  const connect = async (as = key) => {
    bot = fake.addBot();
    const response = await gql<{ connectChatAppBChannel: ChannelView }>(CONNECT_B, { i: { botToken: bot.token } }, as);
    return dataOf(response).connectChatAppBChannel.id;
  };

  const gql = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    platforms.harness.graphql<T>(query, variables, as);
  const read = async (variables: Record<string, unknown> = {}) =>
    dataOf(await gql<{ channelChatAppBBotSettings: Settings }>(READ, { c: channelId, ...variables }))
      .channelChatAppBBotSettings;
  const mutate = async (field: string, args: string, variables: Record<string, unknown>) => {
    const passed = args.replace(/\$(\w+): [^,]+/g, '$1: $$$1');
    const query = `mutation($channelId: ID!${args ? `, ${args}` : ''}) { ${field}(channelId: $channelId${passed ? `, ${passed}` : ''}) { ${FIELDS} } }`;
    return gql<Record<string, Settings>>(query, { channelId, ...variables });
  };
  const lastCall = (method: string) => fake.calls(bot, method).at(-1);

  before(async () => {
    await platforms.start();
    org = await platforms.harness.newOrg('Bot settings');
    key = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
  });
  after(() => platforms.stop());
  beforeEach(async () => {
    channelId = await connect();
  });

  describe('channelChatAppBBotSettings', () => {
    it('reads every setting with the get* methods', async () => {
      const settings = await read();
      expect(settings).to.deep.include({
        channelId,
        languageCode: '',
        name: 'Support',
        description: '',
        shortDescription: '',
        commands: [],
        commandsScope: { type: 'DEFAULT', chatId: null, userId: null },
        menuButton: { type: 'DEFAULT', text: null, webAppUrl: null },
      });
      expect(settings.defaultAdminRights.canManageChat).to.equal(false);
      for (const method of [
        'getMyName',
        'getMyDescription',
        'getMyShortDescription',
        'getMyCommands',
        'getChatMenuButton',
      ])
        expect(fake.calls(bot, method), method).to.deep.equal([{}]);
      expect(fake.calls(bot, 'getMyDefaultAdministratorRights')).to.have.deep.members([
        { for_channels: false },
        { for_channels: true },
      ]);
    });

    it('reads one language and the commands of one scope', async () => {
      await read({ l: 'de', s: { type: 'CHAT_MEMBER', chatId: '-100123', userId: '42' } });
      expect(lastCall('getMyName')).to.deep.equal({ language_code: 'de' });
      expect(lastCall('getMyCommands')).to.deep.equal({
        scope: { type: 'chat_member', chat_id: -100123, user_id: 42 },
        language_code: 'de',
      });
    });
  });

  describe('mutations reach the platform with its method and body, and answer the settings read back', () => {
    it('updateChatAppBBotName → setMyName', async () => {
      const answer = dataOf(
        await mutate('updateChatAppBBotName', '$name: String!, $languageCode: String', {
          name: 'Acme Help',
          languageCode: 'en',
        }),
      );
      expect(lastCall('setMyName')).to.deep.equal({ name: 'Acme Help', language_code: 'en' });
      expect(answer['updateChatAppBBotName']).to.deep.include({ name: 'Acme Help', languageCode: 'en' });
    });

    it('updateChatAppBBotDescription → setMyDescription', async () => {
      const answer = dataOf(
        await mutate('updateChatAppBBotDescription', '$description: String!', {
          description: 'We answer within the hour.',
        }),
      );
      expect(lastCall('setMyDescription')).to.deep.equal({ description: 'We answer within the hour.' });
      expect(answer['updateChatAppBBotDescription']).to.have.property('description', 'We answer within the hour.');
    });

    it('updateChatAppBBotShortDescription → setMyShortDescription', async () => {
      const answer = dataOf(
        await mutate('updateChatAppBBotShortDescription', '$shortDescription: String!', {
          shortDescription: 'Acme support',
        }),
      );
      expect(lastCall('setMyShortDescription')).to.deep.equal({ short_description: 'Acme support' });
      expect(answer['updateChatAppBBotShortDescription']).to.have.property('shortDescription', 'Acme support');
    });

    it('setChatAppBBotCommands → setMyCommands, with a scope and language', async () => {
      const answer = dataOf(
        await mutate(
          'setChatAppBBotCommands',
          '$commands: [ChatAppBBotCommandInput!]!, $scope: ChatAppBBotCommandScopeInput, $languageCode: String',
          {
            commands: [
              { command: '/start', description: 'Begin' },
              { command: 'help', description: 'Get help' },
            ],
            scope: { type: 'ALL_PRIVATE_CHATS' },
            languageCode: 'en',
          },
        ),
      );
      expect(lastCall('setMyCommands')).to.deep.equal({
        commands: [
          { command: 'start', description: 'Begin' },
          { command: 'help', description: 'Get help' },
        ],
        scope: { type: 'all_private_chats' },
        language_code: 'en',
      });
      expect(answer['setChatAppBBotCommands']).to.deep.include({
        commands: [
          { command: 'start', description: 'Begin' },
          { command: 'help', description: 'Get help' },
        ],
        commandsScope: { type: 'ALL_PRIVATE_CHATS', chatId: null, userId: null },
      });
    });

    it('deleteChatAppBBotCommands → deleteMyCommands', async () => {
      await mutate('setChatAppBBotCommands', '$commands: [ChatAppBBotCommandInput!]!', {
        commands: [{ command: 'start', description: 'Begin' }],
      });
      const answer = dataOf(await mutate('deleteChatAppBBotCommands', '', {}));
      expect(fake.calls(bot, 'deleteMyCommands')).to.deep.equal([{}]);
      expect(answer['deleteChatAppBBotCommands']).to.have.deep.property('commands', []);
    });

    it('setChatAppBBotMenuButton → setChatMenuButton', async () => {
      const answer = dataOf(
        await mutate('setChatAppBBotMenuButton', '$menuButton: ChatAppBBotMenuButtonInput!', {
          menuButton: { type: 'WEB_APP', text: 'Shop', webAppUrl: 'https://shop.example.com/app' },
        }),
      );
      expect(lastCall('setChatMenuButton')).to.deep.equal({
        menu_button: { type: 'web_app', text: 'Shop', web_app: { url: 'https://shop.example.com/app' } },
      });
      expect(answer['setChatAppBBotMenuButton']).to.have.deep.property('menuButton', {
        type: 'WEB_APP',
        text: 'Shop',
        webAppUrl: 'https://shop.example.com/app',
      });
    });

    it('setChatAppBBotDefaultAdminRights → setMyDefaultAdministratorRights', async () => {
      const answer = dataOf(
        await mutate(
          'setChatAppBBotDefaultAdminRights',
          '$rights: ChatAppBBotAdminRightsInput, $forChannels: Boolean',
          {
            rights: { canManageChat: true, canPostMessages: true },
            forChannels: true,
          },
        ),
      );
      const call = lastCall('setMyDefaultAdministratorRights')!;
      expect(call['for_channels']).to.equal(true);
      expect(call['rights']).to.deep.include({
        can_manage_chat: true,
        can_post_messages: true,
        can_delete_messages: false,
      });
      const settings = answer['setChatAppBBotDefaultAdminRights']!;
      expect(settings.defaultChannelAdminRights).to.deep.include({ canManageChat: true, canPostMessages: true });
      expect(settings.defaultAdminRights.canManageChat).to.equal(false);
    });
  });

  describe('refusals', () => {
    it('refuses a key without CHANNELS_MANAGE', async () => {
      const reader = (await org.mintKey([ApiScope.MESSAGES_READ])).key;
      expectError(await gql(READ, { c: channelId }, reader), 403, 'FORBIDDEN');
      const before = fake.requests.length;
      const refused = await gql(
        'mutation($c: ID!) { updateChatAppBBotName(channelId: $c, name: "x") { name } }',
        { c: channelId },
        reader,
      );
      expectError(refused, 403, 'FORBIDDEN');
      expect(fake.requests.length).to.equal(before);
    });

    it("answers another org's channel, an unknown id and a disconnected channel as NOT_FOUND", async () => {
      const other = await platforms.harness.newOrg('Other');
      const otherKey = (await other.mintKey([ApiScope.CHANNELS_MANAGE])).key;
      const before = fake.requests.length;
      const theirs = await gql(READ, { c: channelId }, otherKey);
      expectError(theirs, 200, 'NOT_FOUND');
      const unknown = await gql(READ, { c: newId() });
      expect(theirs.body.errors?.[0]?.message).to.equal(unknown.body.errors?.[0]?.message);
      expectError(unknown, 200, 'NOT_FOUND');
      expect(fake.requests.length).to.equal(before);
      dataOf(await gql(DISCONNECT, { id: channelId }));
      const after = fake.requests.length;
      expectError(await gql(READ, { c: channelId }), 200, 'NOT_FOUND');
      expect(fake.requests.length).to.equal(after);
    });

    it('refuses a channel of another kind as BAD_USER_INPUT naming channelId', async () => {
      const account = platforms.c.addAccount();
      const connected = await gql<{ connectChatAppCChannel: ChannelView }>(CONNECT_C, {
        i: { authToken: account.authToken },
      });
      const viber = dataOf(connected).connectChatAppCChannel.id;
      const answer = await gql(READ, { c: viber });
      expectError(answer, 200, 'BAD_USER_INPUT');
      expect(answer.body.errors?.[0]?.message).to.match(/channelId: bot settings exist for CHAT_APP_B channels only/);
    });

    const badInputs: [string, string, string, Record<string, unknown>, RegExp][] = [
      [
        'a name over 64 characters',
        'updateChatAppBBotName',
        '$name: String!',
        { name: 'n'.repeat(65) },
        /^name: at most 64/,
      ],
      [
        'a description over 512',
        'updateChatAppBBotDescription',
        '$description: String!',
        { description: 'd'.repeat(513) },
        /^description: at most 512/,
      ],
      [
        'a short description over 120',
        'updateChatAppBBotShortDescription',
        '$shortDescription: String!',
        { shortDescription: 's'.repeat(121) },
        /^shortDescription: at most 120/,
      ],
      [
        'a language code that is not ISO 639-1',
        'updateChatAppBBotName',
        '$name: String!, $languageCode: String',
        { name: 'x', languageCode: 'english' },
        /^languageCode: /,
      ],
      [
        'a command with capitals',
        'setChatAppBBotCommands',
        '$commands: [ChatAppBBotCommandInput!]!',
        { commands: [{ command: 'Start', description: 'x' }] },
        /^commands\[0\]\.command: 1-32 characters/,
      ],
      [
        'a command of 33 characters',
        'setChatAppBBotCommands',
        '$commands: [ChatAppBBotCommandInput!]!',
        { commands: [{ command: 'c'.repeat(33), description: 'x' }] },
        /^commands\[0\]\.command/,
      ],
      [
        'a command listed twice',
        'setChatAppBBotCommands',
        '$commands: [ChatAppBBotCommandInput!]!',
        {
          commands: [
            { command: 'a', description: 'x' },
            { command: 'a', description: 'y' },
          ],
        },
        /^commands\[1\]\.command: "a" is listed twice/,
      ],
      [
        'an empty command description',
        'setChatAppBBotCommands',
        '$commands: [ChatAppBBotCommandInput!]!',
        { commands: [{ command: 'a', description: ' ' }] },
        /^commands\[0\]\.description/,
      ],
      [
        '101 commands',
        'setChatAppBBotCommands',
        '$commands: [ChatAppBBotCommandInput!]!',
        { commands: Array.from({ length: 101 }, (_, i) => ({ command: `c${i}`, description: 'x' })) },
        /^commands: at most 100/,
      ],
      [
        'a CHAT scope without a chat',
        'deleteChatAppBBotCommands',
        '$scope: ChatAppBBotCommandScopeInput',
        { scope: { type: 'CHAT' } },
        /^scope\.chatId: /,
      ],
      [
        'a web app button without https',
        'setChatAppBBotMenuButton',
        '$menuButton: ChatAppBBotMenuButtonInput!',
        { menuButton: { type: 'WEB_APP', text: 'Shop', webAppUrl: 'http://shop.example.com' } },
        /^menuButton\.webAppUrl: /,
      ],
      [
        'a commands button with text',
        'setChatAppBBotMenuButton',
        '$menuButton: ChatAppBBotMenuButtonInput!',
        { menuButton: { type: 'COMMANDS', text: 'x' } },
        /^menuButton: COMMANDS takes no text/,
      ],
    ];
    for (const [what, field, args, variables, message] of badInputs) {
      it(`refuses ${what} as BAD_USER_INPUT naming the field, before calling the platform`, async () => {
        const before = fake.requests.length;
        const answer = await mutate(field, args, variables);
        expectError(answer, 200, 'BAD_USER_INPUT');
        expect(answer.body.errors?.[0]?.message).to.match(message);
        expect(fake.requests.length).to.equal(before);
      });
    }

    it("maps the platform's refusals: 429 to RATE_LIMITED, a revoked token to FAILED_PRECONDITION, a 400 to BAD_USER_INPUT", async () => {
      fake.failMethod('setMyName', 429, 'Too Many Requests: retry after 3', { retryAfter: 3 });
      expectError(await mutate('updateChatAppBBotName', '$name: String!', { name: 'x' }), 200, 'RATE_LIMITED');
      fake.failMethod('setMyName', 401, 'Unauthorized');
      expectError(await mutate('updateChatAppBBotName', '$name: String!', { name: 'x' }), 200, 'FAILED_PRECONDITION');
      fake.failMethod('setMyName', 400, 'Bad Request: bot name is invalid');
      const refused = await mutate('updateChatAppBBotName', '$name: String!', { name: 'x' });
      expectError(refused, 200, 'BAD_USER_INPUT');
      expect(JSON.stringify(refused.body)).to.contain('Bad Request: bot name is invalid').and.not.contain(bot.token);
    });
  });
});
