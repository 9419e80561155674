import { expect } from 'chai';
import { ALL_SCOPES, ApiScope, OrgKind, newId } from '@svc/kit';
import { insertPartnerDelivery } from '../support/partner-webhooks';
import { sharedStack } from '../support/shared-stack';
import { ALL_SCOPES_BUT_PARTNER, type StackHarness, type TestOrg } from '../support/stack-harness';
import { dataOf, expectError, expectField, refusalOf } from './inbox-fixtures';

interface Webhook {
  id: string;
  url: string;
  events: string[];
  status: string;
  disabledReason: string | null;
  disabledAt: string | null;
  description: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Delivery {
  id: string;
  webhookId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  attempts: { attempt: number; statusCode: number; responseExcerpt: string }[];
}

const WEBHOOK =
  'id url events status disabledReason disabledAt description previousSecretExpiresAt createdAt updatedAt';
const DELIVERY =
  'id webhookId eventType status attemptCount nextAttemptAt attempts { attempt statusCode responseExcerpt }';
const REGISTER = `mutation($i: RegisterPartnerWebhookInput!) {
  registerPartnerWebhook(input: $i) { secret webhook { ${WEBHOOK} } } }`;
const ROTATE = `mutation($id: ID!) { rotatePartnerWebhookSecret(id: $id) { secret webhook { ${WEBHOOK} } } }`;
const SET_EVENTS = `mutation($id: ID!, $e: [String!]!) { setPartnerWebhookEvents(id: $id, events: $e) { ${WEBHOOK} } }`;
const SET_STATUS = `mutation($id: ID!, $s: PartnerWebhookStatus!) {
  setPartnerWebhookStatus(id: $id, status: $s) { ${WEBHOOK} } }`;
const DELETE = 'mutation($id: ID!) { deletePartnerWebhook(id: $id) { ok } }';
const LIST = `query($limit: Int, $offset: Int) {
  partnerWebhooks(limit: $limit, offset: $offset) { data { ${WEBHOOK} } totalCount hasMore } }`;
const DELIVERIES = `query($w: ID!, $s: PartnerWebhookDeliveryStatus, $limit: Int, $offset: Int) {
  partnerWebhookDeliveries(webhookId: $w, status: $s, limit: $limit, offset: $offset) {
    data { ${DELIVERY} } totalCount hasMore } }`;
const REPLAY = `mutation($id: ID!) { replayPartnerWebhookDelivery(id: $id) { ${DELIVERY} } }`;

/** Public-looking endpoints that these API tests never call (the delivery tests run their own receivers). */
const URL = 'https://93.184.215.14/partner/hooks';

describe('Partner webhooks: management through GraphQL (PARTNER_ADMIN, TECH_PROVIDER only)', function () {
  let harness: StackHarness;
  let provider: TestOrg;
  let key: string;

  before(async function () {
    this.timeout(120_000);
    harness = await sharedStack();
    provider = await harness.newOrg('Provider', OrgKind.TECH_PROVIDER);
    key = (await provider.mintKey([ApiScope.PARTNER_ADMIN])).key;
  });

  const gql = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, token = key) =>
    harness.graphql<T>(query, variables, token);

  async function register(
    input: Record<string, unknown> = {},
    token = key,
  ): Promise<{ webhook: Webhook; secret: string }> {
    const answer = dataOf(
      await gql<{ registerPartnerWebhook: { webhook: Webhook; secret: string } }>(
        REGISTER,
        { i: { url: URL, events: ['message.created'], ...input } },
        token,
      ),
    );
    return answer.registerPartnerWebhook;
  }

  it('registers an endpoint with its events sorted and deduplicated, answering its secret once', async () => {
    const { webhook, secret } = await register({
      events: ['message.created', 'contact.updated', 'message.created'],
      description: 'CRM sync',
    });
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook).to.include({
      url: URL,
      status: 'ENABLED',
      disabledReason: null,
      description: 'CRM sync',
      previousSecretExpiresAt: null,
    });
    expect(webhook.events).to.deep.equal(['contact.updated', 'message.created']);
    const listed = dataOf(await gql<{ partnerWebhooks: { data: Webhook[] } }>(LIST, { limit: 100 })).partnerWebhooks;
    expect(listed.data.find((w) => w.id === webhook.id)).to.deep.equal(webhook);
  });

  it('shows a secret only in the answers of register and rotate', async () => {
    const types = dataOf(
      await gql<{ __schema: { types: { name: string; fields: { name: string }[] | null }[] } }>(
        '{ __schema { types { name fields { name } } } }',
      ),
    ).__schema.types;
    const withSecret = types.filter((type) => type.fields?.some((field) => field.name === 'secret'));
    expect(withSecret.map((type) => type.name).filter((name) => name.startsWith('Partner'))).to.deep.equal([
      'PartnerWebhookWithSecret',
    ]);
  });

  it('rotates the secret: a new one, the previous signing for a day next to it', async () => {
    const { webhook, secret } = await register();
    const before = Date.now();
    const rotated = dataOf(
      await gql<{ rotatePartnerWebhookSecret: { webhook: Webhook; secret: string } }>(ROTATE, { id: webhook.id }),
    ).rotatePartnerWebhookSecret;
    expect(rotated.secret)
      .to.match(/^whsec_/)
      .and.not.equal(secret);
    const expires = Date.parse(rotated.webhook.previousSecretExpiresAt ?? '');
    expect(expires - before).to.be.within(86_400_000 - 60_000, 86_400_000 + 60_000);
  });

  it('replaces the events, refusing unknown kinds and an empty list, naming events', async () => {
    const { webhook } = await register();
    const set = dataOf(
      await gql<{ setPartnerWebhookEvents: Webhook }>(SET_EVENTS, {
        id: webhook.id,
        e: ['conversation.closed', 'channel.connected'],
      }),
    ).setPartnerWebhookEvents;
    expect(set.events).to.deep.equal(['channel.connected', 'conversation.closed']);
    for (const e of [[], ['message.created', 'message.exploded']])
      expectField(await gql(SET_EVENTS, { id: webhook.id, e }), 'BAD_USER_INPUT', 'events');
    expectField(await gql(REGISTER, { i: { url: URL, events: ['nope'] } }), 'BAD_USER_INPUT', 'events');
  });

  it('disables by hand (MANUAL) and enables again, clearing the reason', async () => {
    const { webhook } = await register();
    const disabled = dataOf(
      await gql<{ setPartnerWebhookStatus: Webhook }>(SET_STATUS, { id: webhook.id, s: 'DISABLED' }),
    ).setPartnerWebhookStatus;
    expect(disabled).to.include({ status: 'DISABLED', disabledReason: 'MANUAL' });
    expect(disabled.disabledAt).to.be.a('string');
    const enabled = dataOf(
      await gql<{ setPartnerWebhookStatus: Webhook }>(SET_STATUS, { id: webhook.id, s: 'ENABLED' }),
    ).setPartnerWebhookStatus;
    expect(enabled).to.include({ status: 'ENABLED', disabledReason: null, disabledAt: null });
  });

  it('lists a webhook’s deliveries newest first with their attempts, and replays one', async () => {
    const { webhook } = await register();
    const owner = { orgId: provider.id, id: webhook.id };
    const older = await insertPartnerDelivery(harness, owner, { attempts: 2, createdAt: new Date(Date.now() - 1000) });
    const newer = await insertPartnerDelivery(harness, owner, { status: 'DELIVERED', attempts: 1 });
    const page = dataOf(
      await gql<{ partnerWebhookDeliveries: { data: Delivery[]; totalCount: number; hasMore: boolean } }>(DELIVERIES, {
        w: webhook.id,
      }),
    ).partnerWebhookDeliveries;
    expect(page.data.map((d) => d.id)).to.deep.equal([newer, older]);
    expect(page.data[1]?.attempts.map((a) => [a.attempt, a.statusCode])).to.deep.equal([
      [1, 503],
      [2, 503],
    ]);
    const failed = dataOf(
      await gql<{ partnerWebhookDeliveries: { data: Delivery[]; totalCount: number; hasMore: boolean } }>(DELIVERIES, {
        w: webhook.id,
        s: 'FAILED',
        limit: 1,
      }),
    ).partnerWebhookDeliveries;
    expect([failed.data.map((d) => d.id), failed.totalCount, failed.hasMore]).to.deep.equal([[older], 1, false]);
    // The replay sends one attempt now (decision 0245): to a name that resolves to loopback since it was registered,
    // so the SSRF guard refuses it at send time (no HTTP answer, status 0) and the FAILED delivery stays FAILED.
    await harness.stack.partner.dataSource
      .getRepository('PartnerWebhookRow')
      .update({ id: webhook.id }, { url: 'https://127.0.0.1/partner/hooks' });
    const replayed = dataOf(
      await gql<{ replayPartnerWebhookDelivery: Delivery }>(REPLAY, { id: older }),
    ).replayPartnerWebhookDelivery;
    expect(replayed).to.include({ id: older, status: 'FAILED', webhookId: webhook.id, attemptCount: 3 });
    expect(replayed.attempts.map((a) => [a.attempt, a.statusCode])).to.deep.equal([
      [1, 503],
      [2, 503],
      [3, 0],
    ]);
  });

  it('deletes a webhook with its delivery log; the id is then NOT_FOUND', async () => {
    const { webhook } = await register();
    const delivery = await insertPartnerDelivery(harness, { orgId: provider.id, id: webhook.id });
    expect(dataOf(await gql<{ deletePartnerWebhook: { ok: boolean } }>(DELETE, { id: webhook.id }))).to.deep.equal({
      deletePartnerWebhook: { ok: true },
    });
    expectError(await gql(DELETE, { id: webhook.id }), 200, 'NOT_FOUND');
    expectError(await gql(REPLAY, { id: delivery }), 200, 'NOT_FOUND');
    expectError(await gql(DELIVERIES, { w: webhook.id }), 200, 'NOT_FOUND');
  });

  it('refuses URLs that are not https or name private, loopback or link-local addresses, naming url', async () => {
    for (const url of [
      'http://93.184.215.14/hook',
      'https://127.0.0.1/hook',
      'https://10.0.0.5/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://localhost/hook',
      'not a url',
    ])
      expectField(await gql(REGISTER, { i: { url, events: ['message.created'] } }), 'BAD_USER_INPUT', 'url');
  });

  it('refuses malformed ids as input errors and a bad page', async () => {
    expectField(await gql(ROTATE, { id: 'abc' }), 'BAD_USER_INPUT', 'webhookId');
    expectField(await gql(REPLAY, { id: newId() }), 'BAD_USER_INPUT', 'deliveryId');
    expectField(await gql(LIST, { limit: 101 }), 'BAD_USER_INPUT', 'limit');
    expectField(await gql(LIST, { offset: -1 }), 'BAD_USER_INPUT', 'offset');
  });

  it('limits a provider to 20 webhooks', async () => {
    const org = await harness.newOrg('Busy provider', OrgKind.TECH_PROVIDER);
    const token = (await org.mintKey([ApiScope.PARTNER_ADMIN])).key;
    for (let i = 0; i < 20; i++) await register({ url: `${URL}/${i}` }, token);
    expectError(await gql(REGISTER, { i: { url: URL, events: ['message.created'] } }, token), 200, 'CONFLICT');
    const listed = dataOf(await gql<{ partnerWebhooks: { totalCount: number } }>(LIST, {}, token)).partnerWebhooks;
    expect(listed.totalCount).to.equal(20);
  });

  it('accepts a member login on the provider org', async () => {
    const { webhook } = await register({}, provider.sessionToken);
    const listed = dataOf(
      await gql<{ partnerWebhooks: { data: Webhook[] } }>(LIST, { limit: 100 }, provider.sessionToken),
    );
    expect(listed.partnerWebhooks.data.map((w) => w.id)).to.include(webhook.id);
  });

  it('refuses a standard org, even with a key that holds PARTNER_ADMIN, and a provider key without it', async () => {
    const standard = await harness.newOrg('Standard');
    const minted = await standard.mintKey(ALL_SCOPES_BUT_PARTNER);
    // A STANDARD org cannot mint PARTNER_ADMIN; a key row holding it anyway (written directly) unlocks nothing.
    await harness.stack.identity.dataSource
      .getRepository('ApiKeyRow')
      .update({ id: minted.id }, { scopes: [...ALL_SCOPES] });
    const withoutScope = (await provider.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    for (const token of [minted.key, standard.sessionToken, withoutScope]) {
      const response = await gql(LIST, {}, token);
      expectError(response, 403, 'FORBIDDEN');
      expect(response.body.errors?.[0]?.extensions?.scope).to.equal('PARTNER_ADMIN');
      expectError(await gql(REGISTER, { i: { url: URL, events: ['message.created'] } }, token), 403, 'FORBIDDEN');
    }
  });

  it('answers another provider’s webhook and delivery NOT_FOUND, exactly like unknown ids', async () => {
    const { webhook } = await register();
    const delivery = await insertPartnerDelivery(harness, { orgId: provider.id, id: webhook.id });
    const other = await harness.newOrg('Other provider', OrgKind.TECH_PROVIDER);
    const token = (await other.mintKey([ApiScope.PARTNER_ADMIN])).key;
    const unknownDelivery = `msg_${newId()}`;
    const pairs: [string, Record<string, unknown>, Record<string, unknown>, string, string][] = [
      [ROTATE, { id: webhook.id }, { id: newId() }, webhook.id, 'webhookId'],
      [SET_EVENTS, { id: webhook.id, e: ['message.created'] }, { id: newId(), e: ['message.created'] }, webhook.id, ''],
      [SET_STATUS, { id: webhook.id, s: 'DISABLED' }, { id: newId(), s: 'DISABLED' }, webhook.id, ''],
      [DELIVERIES, { w: webhook.id }, { w: newId() }, webhook.id, ''],
      [DELETE, { id: webhook.id }, { id: newId() }, webhook.id, ''],
      [REPLAY, { id: delivery }, { id: unknownDelivery }, delivery, ''],
    ];
    for (const [query, theirs, nobodys, id] of pairs) {
      const refused = await gql(query, theirs, token);
      expectError(refused, 200, 'NOT_FOUND');
      const unknown = await gql(query, nobodys, token);
      const unknownId = String(Object.values(nobodys)[0]);
      expect(refusalOf(refused, id)).to.deep.equal(refusalOf(unknown, unknownId));
    }
    const listed = dataOf(await gql<{ partnerWebhooks: { totalCount: number } }>(LIST, {}, token)).partnerWebhooks;
    expect(listed.totalCount).to.equal(0);
    const mine = dataOf(await gql<{ partnerWebhooks: { data: Webhook[] } }>(LIST, { limit: 100 })).partnerWebhooks;
    expect(mine.data.find((w) => w.id === webhook.id)?.status).to.equal('ENABLED');
  });
});
