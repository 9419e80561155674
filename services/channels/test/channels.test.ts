import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { status, type Metadata } from '@grpc/grpc-js';
import { SignJWT, UnsecuredJWT, exportSPKI, generateKeyPair } from 'jose';
import {
  ApiScope,
  apiKeyPrincipal,
  callerMetadata,
  dropTestDatabase,
  eventually,
  grpcClient,
  keyIdOf,
  newKeyEntry,
  parseKeys,
  SecretKeyring,
  testDbUrl,
  newId,
  rejection,
  systemPrincipal,
  testEnv,
  unary,
  type Principal,
} from '@svc/kit';
import {
  ChannelStatus,
  ChannelType,
  ChannelsServiceClient,
  IdentityVerification,
  LauncherPosition,
  type WebIntegrationInput,
} from '@svc/proto/channels/v1';
import { Envelope } from '@svc/proto/events/v1';
import { ChannelsApp, CHANNELS_TOPIC, channelsConfig, channelsKeyring } from '../src';
import { resealSecrets } from '../src/domain/reseal';
import { PlatformChannelRow, WebIntegrationRow } from '../src/entities';

describe('ChannelsService', () => {
  let app: ChannelsApp;
  let client: ChannelsServiceClient;
  const orgId = newId();
  const otherOrgId = newId();
  const as = (principal: Principal): Promise<Metadata> => callerMetadata(principal, 'channels');
  const manager = (org = orgId) => as(apiKeyPrincipal(org, [ApiScope.CHANNELS_MANAGE]));
  const widget = (org = orgId) => as(systemPrincipal(org));

  const create = async (input: WebIntegrationInput = {}, org = orgId) =>
    unary(client.createWebIntegration.bind(client), { input }, await manager(org));
  const verify = async (
    integrationId: string,
    proof: { jwt: string } | { userHash: { userId: string; userHash: string } },
  ) => unary(client.verifyVisitorProof.bind(client), { integrationId, ...proof }, await widget());
  const refusal = async (promise: Promise<unknown>) => {
    const error = await rejection(promise);
    return { code: error.code, details: error.details };
  };
  const jwt = (secret: string, claims: Record<string, unknown> = {}, lifetime = '10m') =>
    new SignJWT({ name: 'Ada', email: 'ada@example.com', ...claims })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user-42')
      .setIssuedAt()
      .setExpirationTime(lifetime)
      .sign(new TextEncoder().encode(secret));
  const userHash = (secret: string, userId = 'user-42') => createHmac('sha256', secret).update(userId).digest('hex');

  before(async () => {
    app = new ChannelsApp(channelsConfig(testEnv('channels')));
    await app.start();
    client = grpcClient(ChannelsServiceClient, `127.0.0.1:${app.grpcPort}`);
  });

  after(async () => {
    client?.close();
    await app?.stop();
    if (app) await dropTestDatabase(app.config.DB_URL);
  });

  describe('configuration', () => {
    it('refuses to serve in production without CHANNELS_SECRETS_KEYS; the migration Job needs none', () => {
      const production = { ...testEnv('channels'), NODE_ENV: 'production' };
      expect(() => channelsConfig(production)).to.throw(/CHANNELS_SECRETS_KEYS/);
      expect(channelsConfig(production, { migrating: true }).CHANNELS_SECRETS_KEYS).to.equal(undefined);
      expect(() => channelsConfig({ ...production, CHANNELS_SECRETS_KEYS: 'k1:short' })).to.throw(/32 random bytes/);
    });

    it('keeps a development key in a file next to the SQLite database, the same on every start', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-channels-'));
      try {
        const config = channelsConfig({
          ...testEnv('channels'),
          NODE_ENV: 'development',
          DB_URL: `sqlite:${dir}/c.sqlite`,
        });
        const first = channelsKeyring(config);
        expect(first.source).to.equal(path.join(dir, 'channels-secrets.key'));
        const sealed = first.keyring.seal('wis_x', { orgId, id: 'a' });
        expect(channelsKeyring(config).keyring.open(sealed, { orgId, id: 'a' })).to.equal('wis_x');
        expect(() => channelsKeyring(config).keyring.open(sealed, { orgId, id: 'b' })).to.throw(
          /identity secret of web integration b/,
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('key rotation (CHANNELS_SECRETS_KEYS)', () => {
    it('re-seals every identity secret and platform credential under the new first key at start-up; the old key can then go', async () => {
      const [a, b] = [newKeyEntry('a'), newKeyEntry('b')];
      // A file (on the embedded default): the data outlives the first process.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-channels-keys-'));
      const dbUrl = testDbUrl('channels_keys', path.join(dir, 'channels.sqlite'));
      const env = testEnv('channels_keys', { CHANNELS_SECRETS_KEYS: a, DB_URL: dbUrl });
      const before = new ChannelsApp(channelsConfig(env));
      await before.start();
      let beforeRunning = true;
      let after: ChannelsApp | undefined;
      try {
        const rotating = grpcClient(ChannelsServiceClient, `127.0.0.1:${before.grpcPort}`);
        const created = await unary(rotating.createWebIntegration.bind(rotating), { input: {} }, await manager());
        rotating.close();
        const id = created.integration?.id ?? '';
        const sealedOf = async (app: ChannelsApp) =>
          (await app.dataSource.manager.findOneByOrFail(WebIntegrationRow, { id })).identitySecretSealed;
        expect(keyIdOf(await sealedOf(before))).to.equal('a');
        // A platform channel's credentials and webhook secret are sealed with the same keys (decision 0121).
        const platformId = '0123456789abcdef01234567';
        const platformOwner = { orgId, id: platformId };
        const underA = new SecretKeyring(parseKeys(a));
        await before.dataSource.manager.insert(PlatformChannelRow, {
          id: platformId,
          orgId,
          type: ChannelType.CHAT_APP_B,
          connectedAccount: 'CHAT_APP_B:42',
          externalAccountId: '42',
          account: '{}',
          credentialsSealed: underA.seal('{"botToken":"42:secret"}', platformOwner),
          webhookSecretSealed: underA.seal('hook-secret', platformOwner),
          aiAutoReply: false,
          authorizationError: '',
          connectedAt: new Date(),
        });
        await before.stop();
        beforeRunning = false;

        after = new ChannelsApp(channelsConfig({ ...env, CHANNELS_SECRETS_KEYS: `${b},${a}` }));
        await after.start();
        const resealed = await sealedOf(after);
        expect(keyIdOf(resealed)).to.equal('b');
        const onlyB = new SecretKeyring(parseKeys(b));
        expect(onlyB.open(resealed, { orgId, id })).to.equal(created.identitySecret);
        const platform = await after.dataSource.manager.findOneByOrFail(PlatformChannelRow, { id: platformId });
        expect(onlyB.open(platform.credentialsSealed, platformOwner)).to.equal('{"botToken":"42:secret"}');
        expect(onlyB.open(platform.webhookSecretSealed, platformOwner)).to.equal('hook-secret');
        expect(await resealSecrets(after.dataSource, onlyB)).to.deep.equal({ rewrapped: 0, unreadable: [] });
      } finally {
        await after?.stop();
        if (beforeRunning) await before.stop();
        await dropTestDatabase(dbUrl);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('CreateWebIntegration', () => {
    it('fills the documented defaults and answers the identity secret once, stored only sealed', async () => {
      const created = await create();
      const integration = created.integration;
      expect(integration?.name).to.equal('Website');
      expect(integration?.status).to.equal(ChannelStatus.ACTIVE);
      expect(integration?.publicKey).to.match(/^wk_[A-Za-z0-9_-]{32}$/);
      expect(integration?.allowedOrigins).to.deep.equal([]);
      expect(integration?.branding).to.deep.include({
        primaryColor: '#1f6feb',
        launcherPosition: LauncherPosition.BOTTOM_RIGHT,
        hidden: false,
      });
      expect(integration?.defaultLocale).to.equal('en');
      expect(integration?.availability).to.deep.include({ timeZone: 'UTC', businessHours: [] });
      expect(integration?.prechatForm?.enabled).to.equal(false);
      expect(integration?.security).to.deep.equal({
        identityVerification: IdentityVerification.OPTIONAL,
        googleClientId: '',
        jwtMaxAgeSeconds: 3600,
      });
      expect(integration?.identitySecretRotatedAt).to.equal(integration?.createdAt);
      expect(created.identitySecret).to.match(/^wis_[A-Za-z0-9_-]{43}$/);

      const id = integration?.id ?? '';
      const row = await app.dataSource.manager.findOneByOrFail(WebIntegrationRow, { id });
      expect(row.identitySecretSealed).to.match(/^v1:ephemeral:/);
      expect(JSON.stringify(row)).not.to.include(created.identitySecret.slice(4));
      const read = await unary(client.getWebIntegrationById.bind(client), { id }, await manager());
      expect(JSON.stringify(read)).not.to.include(created.identitySecret.slice(4));
      expect(read).to.deep.equal(integration);
      expect(Object.keys(read)).not.to.include('identitySecret');
    });

    it('stores validated, normalised settings', async () => {
      const { integration } = await create({
        name: '  Main site ',
        status: ChannelStatus.DISABLED,
        allowedOrigins: {
          origins: [
            'HTTPS://Example.COM:443',
            'http://localhost:3000',
            'https://example.com/',
            'http://127.0.0.1:8080',
            'https://shop.example.com:8443',
            'https://bücher.example',
          ],
        },
        branding: { primaryColor: '#AABBCC', teamAvatarUrl: 'https://cdn.example.com/a.png', hidden: true },
        defaultLocale: 'pt-br',
        availability: {
          timeZone: 'Europe/Lisbon',
          businessHours: {
            intervals: [
              { weekday: 2, opens: '09:00', closes: '17:00' },
              { weekday: 1, opens: '13:00', closes: '24:00' },
              { weekday: 1, opens: '08:00', closes: '12:00' },
            ],
          },
        },
        prechatForm: {
          enabled: true,
          name: { asked: true, required: false },
          email: { asked: true, required: true },
          phone: { asked: false, required: false },
        },
        security: {
          identityVerification: IdentityVerification.REQUIRED,
          googleClientId: 'abc.apps',
          jwtMaxAgeSeconds: 60,
        },
      });
      expect(integration?.name).to.equal('Main site');
      expect(integration?.status).to.equal(ChannelStatus.DISABLED);
      expect(integration?.allowedOrigins).to.deep.equal([
        'https://example.com',
        'http://localhost:3000',
        'http://127.0.0.1:8080',
        'https://shop.example.com:8443',
        'https://xn--bcher-kva.example',
      ]);
      expect(integration?.branding?.primaryColor).to.equal('#aabbcc');
      expect(integration?.defaultLocale).to.equal('pt-BR');
      expect(integration?.availability?.businessHours).to.deep.equal([
        { weekday: 1, opens: '08:00', closes: '12:00' },
        { weekday: 1, opens: '13:00', closes: '24:00' },
        { weekday: 2, opens: '09:00', closes: '17:00' },
      ]);
      expect(integration?.prechatForm?.email).to.deep.equal({ asked: true, required: true });
      expect(integration?.security?.identityVerification).to.equal(IdentityVerification.REQUIRED);
    });

    const invalid: [string, WebIntegrationInput][] = [
      ['name', { name: '  ' }],
      ['name', { name: 'x'.repeat(101) }],
      ['allowedOrigins[0]', { allowedOrigins: { origins: ['http://example.com'] } }],
      ['allowedOrigins[1]', { allowedOrigins: { origins: ['https://a.example', 'https://example.com/path'] } }],
      ['allowedOrigins[0]', { allowedOrigins: { origins: ['https://*.example.com'] } }],
      ['allowedOrigins[0]', { allowedOrigins: { origins: ['example.com'] } }],
      ['allowedOrigins[0]', { allowedOrigins: { origins: ['https://example.com?x=1'] } }],
      ['branding.primaryColor', { branding: { primaryColor: 'red' } }],
      ['branding.accentColor', { branding: { accentColor: '#12345' } }],
      ['branding.teamAvatarUrl', { branding: { teamAvatarUrl: 'http://cdn.example.com/a.png' } }],
      ['defaultLocale', { defaultLocale: 'not a locale!' }],
      ['availability.timeZone', { availability: { timeZone: 'Mars/Olympus_Mons' } }],
      [
        'availability.businessHours[0].weekday',
        { availability: { businessHours: { intervals: [{ weekday: 8, opens: '09:00', closes: '10:00' }] } } },
      ],
      [
        'availability.businessHours[0].opens',
        { availability: { businessHours: { intervals: [{ weekday: 1, opens: '9:00', closes: '10:00' }] } } },
      ],
      [
        'availability.businessHours[0].closes',
        { availability: { businessHours: { intervals: [{ weekday: 1, opens: '10:00', closes: '09:59' }] } } },
      ],
      [
        'availability.businessHours[1]',
        {
          availability: {
            businessHours: {
              intervals: [
                { weekday: 3, opens: '09:00', closes: '12:00' },
                { weekday: 3, opens: '11:59', closes: '13:00' },
              ],
            },
          },
        },
      ],
      ['security.jwtMaxAgeSeconds', { security: { jwtMaxAgeSeconds: 59 } }],
      ['security.jwtMaxAgeSeconds', { security: { jwtMaxAgeSeconds: 7 * 24 * 3600 + 1 } }],
      ['security.googleClientId', { security: { googleClientId: 'two words' } }],
      [
        'prechatForm.phone.required',
        { prechatForm: { enabled: true, phone: { asked: false, required: true }, name: undefined, email: undefined } },
      ],
      ['status', { status: ChannelStatus.CHANNEL_STATUS_UNSPECIFIED }],
    ];
    for (const [field, input] of invalid) {
      it(`refuses ${JSON.stringify(input)} with BAD_USER_INPUT naming ${field}`, async () => {
        const error = await refusal(create(input));
        expect(error.code).to.equal(status.INVALID_ARGUMENT);
        expect(error.details.startsWith(`${field}: `), error.details).to.equal(true);
      });
    }

    it('needs CHANNELS_MANAGE', async () => {
      const reader = await as(apiKeyPrincipal(orgId, [ApiScope.CONTACTS_MANAGE, ApiScope.MESSAGES_READ]));
      const error = await refusal(unary(client.createWebIntegration.bind(client), { input: {} }, reader));
      expect(error.code).to.equal(status.PERMISSION_DENIED);
    });
  });

  describe('reads, updates, rotation and deletes', () => {
    it('updates what the input names and keeps the rest', async () => {
      const { integration } = await create({ name: 'Docs', branding: { greeting: 'Hello' } });
      const id = integration?.id ?? '';
      const updated = await unary(
        client.updateWebIntegration.bind(client),
        { id, input: { branding: { primaryColor: '#000000' }, allowedOrigins: { origins: ['https://docs.example'] } } },
        await manager(),
      );
      expect(updated.name).to.equal('Docs');
      expect(updated.branding?.greeting).to.equal('Hello');
      expect(updated.branding?.primaryColor).to.equal('#000000');
      expect(updated.allowedOrigins).to.deep.equal(['https://docs.example']);
      expect(updated.publicKey).to.equal(integration?.publicKey);
      const error = await refusal(
        unary(client.updateWebIntegration.bind(client), { id, input: { defaultLocale: '' } }, await manager()),
      );
      expect(error.details).to.match(/^defaultLocale: /);
    });

    it('answers the oldest live integration of the org without an id, NOT_FOUND when it has none', async () => {
      const lonely = newId();
      const none = await refusal(unary(client.getWebIntegration.bind(client), {}, await manager(lonely)));
      expect(none.code).to.equal(status.NOT_FOUND);
      const first = (await create({ name: 'First' }, lonely)).integration?.id ?? '';
      const second = (await create({ name: 'Second' }, lonely)).integration?.id ?? '';
      expect((await unary(client.getWebIntegration.bind(client), {}, await manager(lonely))).id).to.equal(first);
      await unary(client.deleteWebIntegration.bind(client), { id: first }, await manager(lonely));
      expect((await unary(client.getWebIntegration.bind(client), {}, await manager(lonely))).id).to.equal(second);
    });

    it('keeps every integration inside its org: another org id is NOT_FOUND for every call', async () => {
      const { integration } = await create({}, otherOrgId);
      const id = integration?.id ?? '';
      const mine = await manager();
      for (const call of [
        () => unary(client.getWebIntegrationById.bind(client), { id }, mine),
        () => unary(client.updateWebIntegration.bind(client), { id, input: { name: 'Mine now' } }, mine),
        () => unary(client.rotateWebIntegrationSecret.bind(client), { id }, mine),
        () => unary(client.deleteWebIntegration.bind(client), { id }, mine),
        () => verify(id, { userHash: { userId: 'u', userHash: '00' } }),
      ])
        expect((await refusal(call())).code).to.equal(status.NOT_FOUND);
      const still = await unary(client.getWebIntegrationById.bind(client), { id }, await manager(otherOrgId));
      expect(still.name).to.equal('Website');
    });

    it('deletes: NOT_FOUND everywhere afterwards, the public key resolves to nothing, the sealed secret is erased', async () => {
      const { integration } = await create();
      const id = integration?.id ?? '';
      expect(await unary(client.deleteWebIntegration.bind(client), { id }, await manager())).to.deep.equal({
        deleted: true,
        id,
      });
      expect((await refusal(unary(client.getWebIntegrationById.bind(client), { id }, await manager()))).code).to.equal(
        status.NOT_FOUND,
      );
      const resolve = unary(
        client.resolvePublicKey.bind(client),
        { publicKey: integration?.publicKey ?? '' },
        await as(systemPrincipal()),
      );
      expect((await refusal(resolve)).code).to.equal(status.NOT_FOUND);
      expect((await app.dataSource.manager.findOneByOrFail(WebIntegrationRow, { id })).identitySecretSealed).to.equal(
        '',
      );
    });

    it('emits channel events with ids only (no secret, no settings)', async () => {
      const seen: Envelope[] = [];
      const watcher = await app.bus.subscribe({
        groupId: `${app.config.KAFKA_TOPIC_PREFIX}test.channels.${newId()}`,
        topics: [app.config.KAFKA_TOPIC_PREFIX + CHANNELS_TOPIC],
        fromBeginning: true,
        handle: async (record) => {
          const envelope = Envelope.decode(record.value);
          if (envelope.orgId === orgId) seen.push(envelope);
        },
      });
      try {
        const created = await create({ name: 'Evented' });
        const id = created.integration?.id ?? '';
        await unary(client.updateWebIntegration.bind(client), { id, input: { name: 'Evented 2' } }, await manager());
        const rotated = await unary(client.rotateWebIntegrationSecret.bind(client), { id }, await manager());
        await unary(client.deleteWebIntegration.bind(client), { id }, await manager());
        const mine = await eventually(
          async () => {
            const events = seen.filter((e) => e.channel?.channelId === id);
            return events.length === 4 && events;
          },
          10_000,
          'four channel events',
        );
        expect(mine.map((e) => e.type)).to.deep.equal([
          'channel.created',
          'channel.updated',
          'channel.secret_rotated',
          'channel.deleted',
        ]);
        expect(mine[0]?.channel).to.deep.equal({
          channelId: id,
          channelType: 'WEB',
          publicKey: created.integration?.publicKey,
        });
        const text = JSON.stringify(mine);
        for (const secret of [created.identitySecret, rotated.identitySecret]) expect(text).not.to.include(secret);
      } finally {
        await watcher.stop();
      }
    });
  });

  describe('FindChannels', () => {
    const find = async (channelIds: string[], org = orgId) =>
      (await unary(client.findChannels.bind(client), { channelIds }, await widget(org))).channelIds;

    it("answers only the org's channels that are not deleted, whatever their status, to services only", async () => {
      const active = (await create()).integration?.id ?? '';
      const disabled = (await create({ status: ChannelStatus.DISABLED })).integration?.id ?? '';
      const deleted = (await create()).integration?.id ?? '';
      await unary(client.deleteWebIntegration.bind(client), { id: deleted }, await manager());
      const theirs = (await create({}, otherOrgId)).integration?.id ?? '';
      const found = await find([active, disabled, deleted, theirs, newId(), 'x']);
      expect([...found].sort()).to.deep.equal([active, disabled].sort());
      expect(await find([active], otherOrgId)).to.deep.equal([]);
      const asUser = unary(client.findChannels.bind(client), { channelIds: [active] }, await manager());
      expect((await refusal(asUser)).code).to.equal(status.PERMISSION_DENIED);
    });

    it('answers only the channels of the kind asked for, when one is (decision 0155)', async () => {
      const web = (await create()).integration?.id ?? '';
      const ofKind = async (type: ChannelType) =>
        (await unary(client.findChannels.bind(client), { channelIds: [web], type }, await widget(orgId))).channelIds;
      expect(await ofKind(ChannelType.WEB)).to.deep.equal([web]);
      expect(await ofKind(ChannelType.CHAT_APP_A)).to.deep.equal([]);
      expect((await refusal(ofKind(ChannelType.UNRECOGNIZED))).code).to.equal(status.INVALID_ARGUMENT);
    });

    it('answers each channel with its kind, and deleted ones too when asked (partner usage, decision 0251)', async () => {
      const web = (await create()).integration?.id ?? '';
      const deleted = (await create()).integration?.id ?? '';
      await unary(client.deleteWebIntegration.bind(client), { id: deleted }, await manager());
      const theirs = (await create({}, otherOrgId)).integration?.id ?? '';
      const ask = async (includeDeleted: boolean) =>
        (
          await unary(
            client.findChannels.bind(client),
            { channelIds: [web, deleted, theirs], includeDeleted },
            await widget(orgId),
          )
        ).channels;
      const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
      expect(await ask(false)).to.deep.equal([{ id: web, type: ChannelType.WEB, deleted: false }]);
      expect([...(await ask(true))].sort(byId)).to.deep.equal(
        [
          { id: web, type: ChannelType.WEB, deleted: false },
          { id: deleted, type: ChannelType.WEB, deleted: true },
        ].sort(byId),
      );
    });

    it('refuses more than 100 ids in one call', async () => {
      const ids = Array.from({ length: 101 }, () => newId());
      expect((await refusal(find(ids))).code).to.equal(status.INVALID_ARGUMENT);
    });
  });

  describe('ResolvePublicKey', () => {
    it('answers SYSTEM of the installation with the org, whatever the status', async () => {
      const { integration } = await create({ status: ChannelStatus.DISABLED });
      const resolved = await unary(
        client.resolvePublicKey.bind(client),
        { publicKey: integration?.publicKey ?? '' },
        await as(systemPrincipal()),
      );
      expect(resolved.orgId).to.equal(orgId);
      expect(resolved.integration).to.deep.equal(integration);
    });

    it('answers NOT_FOUND for an unknown key, a key in another case, and a malformed one', async () => {
      const { integration } = await create();
      const key = integration?.publicKey ?? '';
      const flipped =
        key.slice(0, 3) +
        [...key.slice(3)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
      for (const publicKey of [`wk_${'A'.repeat(32)}`, flipped, 'nope', ''])
        expect(
          (await refusal(unary(client.resolvePublicKey.bind(client), { publicKey }, await as(systemPrincipal())))).code,
        ).to.equal(status.NOT_FOUND);
    });

    it('refuses a user principal and SYSTEM of an org', async () => {
      const { integration } = await create();
      const publicKey = integration?.publicKey ?? '';
      const asUser = apiKeyPrincipal(orgId, [ApiScope.CHANNELS_MANAGE]);
      for (const principal of [asUser, systemPrincipal(orgId)])
        expect(
          (await refusal(unary(client.resolvePublicKey.bind(client), { publicKey }, await as(principal)))).code,
        ).to.equal(status.PERMISSION_DENIED);
    });
  });

  describe('VerifyVisitorProof', () => {
    let id = '';
    let secret = '';

    before(async () => {
      const created = await create({ security: { jwtMaxAgeSeconds: 3600 } });
      id = created.integration?.id ?? '';
      secret = created.identitySecret;
    });

    it('accepts a valid jwt with its profile claims and a valid userHash', async () => {
      const verified = await verify(id, { jwt: await jwt(secret, { phone: '+15550100100', role: 'admin' }) });
      expect(verified.userId).to.equal('user-42');
      expect(JSON.parse(verified.claimsJson)).to.deep.equal({
        name: 'Ada',
        email: 'ada@example.com',
        phone: '+15550100100',
      });
      expect(await verify(id, { userHash: { userId: 'user-42', userHash: userHash(secret) } })).to.deep.equal({
        userId: 'user-42',
        claimsJson: '{}',
      });
      const upper = userHash(secret).toUpperCase();
      expect((await verify(id, { userHash: { userId: 'user-42', userHash: upper } })).userId).to.equal('user-42');
    });

    const refusedWith = async (proof: Parameters<typeof verify>[1], reason: RegExp, integrationId = id) => {
      const error = await refusal(verify(integrationId, proof));
      expect(error.code, error.details).to.equal(status.UNAUTHENTICATED);
      expect(error.details).to.match(reason);
    };

    it('refuses an expired jwt', async () => {
      const past = Math.floor(Date.now() / 1000) - 120;
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('user-42')
        .setIssuedAt(past - 60)
        .setExpirationTime(past)
        .sign(new TextEncoder().encode(secret));
      await refusedWith({ jwt: token }, /expired/);
    });

    it('refuses a jwt signed with another secret, and a tampered one', async () => {
      await refusedWith({ jwt: await jwt(`${secret}x`) }, /bad signature/);
      const [header, , signature] = (await jwt(secret)).split('.');
      const forged = Buffer.from(JSON.stringify({ sub: 'admin', exp: Math.floor(Date.now() / 1000) + 60 })).toString(
        'base64url',
      );
      await refusedWith({ jwt: [header, forged, signature].join('.') }, /bad signature/);
    });

    it('refuses alg none and an RS256/HS256 confusion', async () => {
      const unsecured = new UnsecuredJWT({ sub: 'user-42' }).setIssuedAt().setExpirationTime('5m').encode();
      await refusedWith({ jwt: unsecured }, /algorithm not allowed/);
      const { privateKey, publicKey } = await generateKeyPair('RS256');
      const rs256 = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256' })
        .setSubject('user-42')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      await refusedWith({ jwt: rs256 }, /algorithm not allowed/);
      // HS256 keyed with a public key (the classic confusion): the identity secret is the only HS256 key.
      const pem = await exportSPKI(publicKey);
      await refusedWith({ jwt: await jwt(pem) }, /bad signature/);
    });

    it('refuses a jwt that lives longer than the configured maximum age, with or without iat', async () => {
      await refusedWith({ jwt: await jwt(secret, {}, '2h') }, /too long-lived/);
      const noIat = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('user-42')
        .setExpirationTime('3h')
        .sign(new TextEncoder().encode(secret));
      await refusedWith({ jwt: noIat }, /too long-lived/);
      const backdated = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('user-42')
        .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(secret));
      await refusedWith({ jwt: backdated }, /too long-lived/);
    });

    it('refuses a jwt without sub, without exp, or not yet valid', async () => {
      const key = new TextEncoder().encode(secret);
      const noSub = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(key);
      await refusedWith({ jwt: noSub }, /sub is required/);
      const noExp = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('user-42').sign(key);
      await refusedWith({ jwt: noExp }, /exp is required/);
      const later = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('user-42')
        .setNotBefore('10m')
        .setExpirationTime('20m')
        .sign(key);
      await refusedWith({ jwt: later }, /not yet valid/);
      await refusedWith({ jwt: 'not.a.jwt' }, /malformed/);
    });

    it('refuses a wrong or malformed userHash', async () => {
      await refusedWith({ userHash: { userId: 'user-43', userHash: userHash(secret) } }, /userHash does not match/);
      await refusedWith({ userHash: { userId: 'user-42', userHash: userHash(secret).slice(2) } }, /does not match/);
      await refusedWith({ userHash: { userId: 'user-42', userHash: userHash(`${secret}x`) } }, /does not match/);
    });

    it('refuses proofs made with the old secret as soon as it is rotated', async () => {
      const { integration, identitySecret: before } = await create();
      const rotatingId = integration?.id ?? '';
      const oldJwt = await jwt(before);
      expect((await verify(rotatingId, { jwt: oldJwt })).userId).to.equal('user-42');
      const rotated = await unary(client.rotateWebIntegrationSecret.bind(client), { id: rotatingId }, await manager());
      expect(rotated.identitySecret).to.match(/^wis_/);
      expect(rotated.identitySecret).not.to.equal(before);
      expect(rotated.integration?.identitySecretRotatedAt).not.to.equal(integration?.identitySecretRotatedAt);
      await refusedWith({ jwt: oldJwt }, /bad signature/, rotatingId);
      await refusedWith({ userHash: { userId: 'user-42', userHash: userHash(before) } }, /does not match/, rotatingId);
      expect((await verify(rotatingId, { jwt: await jwt(rotated.identitySecret) })).userId).to.equal('user-42');
      const fresh = { userId: 'user-42', userHash: userHash(rotated.identitySecret) };
      expect((await verify(rotatingId, { userHash: fresh })).userId).to.equal('user-42');
    });

    it('checks proofs of a DISABLED integration (widget-api decides) and none of a deleted one', async () => {
      const created = await create({ status: ChannelStatus.DISABLED });
      const disabledId = created.integration?.id ?? '';
      const proof = { userHash: { userId: 'user-42', userHash: userHash(created.identitySecret) } };
      expect((await verify(disabledId, proof)).userId).to.equal('user-42');
      await unary(client.deleteWebIntegration.bind(client), { id: disabledId }, await manager());
      expect((await refusal(verify(disabledId, proof))).code).to.equal(status.NOT_FOUND);
    });

    it('answers only SYSTEM of the integration org', async () => {
      const proof = { integrationId: id, userHash: { userId: 'user-42', userHash: userHash(secret) } };
      const asUser = await manager();
      expect((await refusal(unary(client.verifyVisitorProof.bind(client), proof, asUser))).code).to.equal(
        status.PERMISSION_DENIED,
      );
      const otherOrg = await widget(otherOrgId);
      expect((await refusal(unary(client.verifyVisitorProof.bind(client), proof, otherOrg))).code).to.equal(
        status.NOT_FOUND,
      );
    });
  });
});
