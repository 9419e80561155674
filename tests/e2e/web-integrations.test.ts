import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { ApiScope, ALL_SCOPES, PrincipalSigner, grpcClient, importSigningKey, systemPrincipal, unary } from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { dataOf, expectError } from './inbox-fixtures';

interface WebIntegration {
  id: string;
  name: string;
  status: string;
  publicKey: string;
  allowedOrigins: string[];
  branding: { primaryColor: string; launcherPosition: string; hidden: boolean };
  defaultLocale: string;
  availability: { timeZone: string; businessHours: { weekday: number; opens: string; closes: string }[] };
  prechatForm: { enabled: boolean; email: { asked: boolean; required: boolean } };
  security: { identityVerification: string; googleClientId: string; jwtMaxAgeSeconds: number };
  createdAt: string;
  updatedAt: string;
  identitySecretRotatedAt: string;
}

const FIELDS = `id name status publicKey allowedOrigins branding { primaryColor launcherPosition hidden } defaultLocale
  availability { timeZone businessHours { weekday opens closes } } prechatForm { enabled email { asked required } }
  security { identityVerification googleClientId jwtMaxAgeSeconds } createdAt updatedAt identitySecretRotatedAt`;
const CREATE = `mutation($i: WebIntegrationInput) { createWebIntegration(input: $i) { integration { ${FIELDS} } identitySecret } }`;
const UPDATE = `mutation($id: ID!, $i: WebIntegrationInput!) { updateWebIntegration(id: $id, input: $i) { ${FIELDS} } }`;
const ROTATE = `mutation($id: ID!) { rotateWebIntegrationSecret(id: $id) { integration { ${FIELDS} } identitySecret } }`;
const DELETE = `mutation($id: ID!) { deleteWebIntegration(id: $id) { deleted id } }`;
const GET = `query($id: ID!) { webIntegrationById(id: $id) { ${FIELDS} } }`;
const DEFAULT = `{ webIntegration { ${FIELDS} } }`;

type WithSecret = { integration: WebIntegration; identitySecret: string };

describe('Web integrations API (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let key: string;

  const call = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    harness.graphql<T>(query, variables, as);
  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    call<T>(query, variables, as).then(dataOf);
  const create = async (input: Record<string, unknown> = {}, as = key) =>
    (await gql<{ createWebIntegration: WithSecret }>(CREATE, { i: input }, as)).createWebIntegration;
  /** The embedded stack's channels service, called as widget-api would: SYSTEM of the org. */
  const verifyUserHash = async (integrationId: string, userHash: string) => {
    const client = grpcClient(ChannelsServiceClient, `127.0.0.1:${harness.stack.channels.grpcPort}`);
    try {
      const signing = JSON.stringify(harness.stack.trustKeys.signing['widget-api']);
      const signer = new PrincipalSigner('widget-api', importSigningKey('widget-api', signing));
      return await unary(
        client.verifyVisitorProof.bind(client),
        { integrationId, userHash: { userId: 'visitor-1', userHash } },
        signer.metadata(systemPrincipal(org.id), 'channels'),
      );
    } finally {
      client.close();
    }
  };
  const hash = (secret: string) => createHmac('sha256', secret).update('visitor-1').digest('hex');

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Web');
    key = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
  });

  after(async () => harness.stop());

  it('creates with defaults and answers the identity secret only from create and rotate', async () => {
    expectError(await call(DEFAULT), 200, 'NOT_FOUND');
    const created = await create({
      name: 'Shop',
      allowedOrigins: ['https://Shop.example:443', 'http://localhost:5173'],
    });
    const { integration } = created;
    expect(integration.name).to.equal('Shop');
    expect(integration.status).to.equal('ACTIVE');
    expect(integration.publicKey).to.match(/^wk_[A-Za-z0-9_-]{32}$/);
    expect(integration.allowedOrigins).to.deep.equal(['https://shop.example', 'http://localhost:5173']);
    expect(integration.branding).to.deep.equal({
      primaryColor: '#1f6feb',
      launcherPosition: 'BOTTOM_RIGHT',
      hidden: false,
    });
    expect(integration.defaultLocale).to.equal('en');
    expect(integration.availability).to.deep.equal({ timeZone: 'UTC', businessHours: [] });
    expect(integration.security).to.deep.equal({
      identityVerification: 'OPTIONAL',
      googleClientId: '',
      jwtMaxAgeSeconds: 3600,
    });
    expect(created.identitySecret).to.match(/^wis_[A-Za-z0-9_-]{43}$/);

    const byId = (await gql<{ webIntegrationById: WebIntegration }>(GET, { id: integration.id })).webIntegrationById;
    expect(byId).to.deep.equal(integration);
    expect((await gql<{ webIntegration: WebIntegration }>(DEFAULT)).webIntegration.id).to.equal(integration.id);
    // The read types have no field that could carry the secret.
    const asking = await call(`query($id: ID!) { webIntegrationById(id: $id) { id identitySecret } }`, {
      id: integration.id,
    });
    expect(asking.body.errors?.[0]?.message).to.match(/Cannot query field "identitySecret"/);
    const updated = await call(`mutation($id: ID!) { updateWebIntegration(id: $id, input: {}) { identitySecret } }`, {
      id: integration.id,
    });
    expect(updated.body.errors?.[0]?.message).to.match(/Cannot query field "identitySecret"/);
    expect((await verifyUserHash(integration.id, hash(created.identitySecret))).userId).to.equal('visitor-1');
  });

  it('updates what the input names, validates with BAD_USER_INPUT naming the field', async () => {
    const { integration } = await create({ name: 'Docs', branding: { primaryColor: '#FF0000' } });
    const updated = (
      await gql<{ updateWebIntegration: WebIntegration }>(UPDATE, {
        id: integration.id,
        i: {
          status: 'DISABLED',
          allowedOrigins: ['https://docs.example'],
          availability: {
            timeZone: 'Europe/Lisbon',
            businessHours: [{ weekday: 1, opens: '09:00', closes: '17:30' }],
          },
          prechatForm: { enabled: true, email: { asked: true, required: true } },
          security: { identityVerification: 'REQUIRED', jwtMaxAgeSeconds: 600 },
        },
      })
    ).updateWebIntegration;
    expect(updated.name).to.equal('Docs');
    expect(updated.status).to.equal('DISABLED');
    expect(updated.branding.primaryColor).to.equal('#ff0000');
    expect(updated.allowedOrigins).to.deep.equal(['https://docs.example']);
    expect(updated.availability).to.deep.equal({
      timeZone: 'Europe/Lisbon',
      businessHours: [{ weekday: 1, opens: '09:00', closes: '17:30' }],
    });
    expect(updated.prechatForm).to.deep.equal({ enabled: true, email: { asked: true, required: true } });
    expect(updated.security.identityVerification).to.equal('REQUIRED');
    expect(updated.publicKey).to.equal(integration.publicKey);

    for (const [input, field] of [
      [{ allowedOrigins: ['http://docs.example'] }, 'allowedOrigins[0]'],
      [{ branding: { accentColor: 'blue' } }, 'branding.accentColor'],
      [{ availability: { timeZone: 'Nowhere/Else' } }, 'availability.timeZone'],
      [{ security: { jwtMaxAgeSeconds: 5 } }, 'security.jwtMaxAgeSeconds'],
      [{ prechatForm: { enabled: true, phone: { asked: false, required: true } } }, 'prechatForm.phone.required'],
    ] as const) {
      const response = await call(UPDATE, { id: integration.id, i: input });
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(response.body.errors?.[0]?.extensions?.field, JSON.stringify(input)).to.equal(field);
    }
  });

  it('rotates: a new secret once, the old one refused at once', async () => {
    const created = await create({ name: 'Rotating' });
    const id = created.integration.id;
    const rotated = (await gql<{ rotateWebIntegrationSecret: WithSecret }>(ROTATE, { id })).rotateWebIntegrationSecret;
    expect(rotated.identitySecret).to.match(/^wis_/);
    expect(rotated.identitySecret).not.to.equal(created.identitySecret);
    expect(rotated.integration.publicKey).to.equal(created.integration.publicKey);
    const error = await verifyUserHash(id, hash(created.identitySecret)).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/userHash does not match/);
    expect((await verifyUserHash(id, hash(rotated.identitySecret))).userId).to.equal('visitor-1');
  });

  it('deletes: gone from every read, the next oldest becomes the default', async () => {
    const other = await harness.newOrg('Web delete');
    const otherKey = (await other.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    const first = (await create({ name: 'First' }, otherKey)).integration;
    const second = (await create({ name: 'Second' }, otherKey)).integration;
    const deleted = (
      await gql<{ deleteWebIntegration: { deleted: boolean; id: string } }>(DELETE, { id: first.id }, otherKey)
    ).deleteWebIntegration;
    expect(deleted).to.deep.equal({ deleted: true, id: first.id });
    expectError(await call(GET, { id: first.id }, otherKey), 200, 'NOT_FOUND');
    expectError(await call(DELETE, { id: first.id }, otherKey), 200, 'NOT_FOUND');
    expect((await gql<{ webIntegration: WebIntegration }>(DEFAULT, {}, otherKey)).webIntegration.id).to.equal(
      second.id,
    );
  });

  it("answers NOT_FOUND for another org's integration, on every operation", async () => {
    const theirs = (await create({ name: 'Theirs' })).integration;
    const stranger = await harness.newOrg('Stranger');
    const strangerKey = (await stranger.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    for (const [query, variables] of [
      [GET, { id: theirs.id }],
      [UPDATE, { id: theirs.id, i: { name: 'Mine' } }],
      [ROTATE, { id: theirs.id }],
      [DELETE, { id: theirs.id }],
    ] as const)
      expectError(await call(query, variables, strangerKey), 200, 'NOT_FOUND');
    expect(
      (await gql<{ webIntegrationById: WebIntegration }>(GET, { id: theirs.id })).webIntegrationById.name,
    ).to.equal('Theirs');
  });

  it('refuses a key without CHANNELS_MANAGE on all six operations, naming the scope', async () => {
    const { integration } = await create({ name: 'Scoped' });
    const without = (
      await org.mintKey(ALL_SCOPES.filter((s) => s !== ApiScope.CHANNELS_MANAGE && s !== ApiScope.PARTNER_ADMIN))
    ).key;
    for (const [query, variables] of [
      [DEFAULT, {}],
      [GET, { id: integration.id }],
      [CREATE, { i: {} }],
      [UPDATE, { id: integration.id, i: { name: 'x' } }],
      [ROTATE, { id: integration.id }],
      [DELETE, { id: integration.id }],
    ] as const) {
      const response = await call(query, variables, without);
      expectError(response, 403, 'FORBIDDEN');
      expect(response.body.errors?.[0]?.extensions?.scope, query).to.equal(ApiScope.CHANNELS_MANAGE);
    }
    expect(
      (await gql<{ webIntegrationById: WebIntegration }>(GET, { id: integration.id })).webIntegrationById.name,
    ).to.equal('Scoped');
  });
});
