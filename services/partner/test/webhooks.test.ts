import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  DomainError,
  MemberRole,
  OrgKind,
  PrincipalKind,
  SecretKeyring,
  apiKeyPrincipal,
  newId,
  principalFor,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import {
  PartnerWebhookDeliveryState_Status as DeliveryStatus,
  PartnerWebhookDisabledReason,
  PartnerWebhookState_Status as WebhookStatus,
} from '@svc/proto/partner/v1/partner_webhooks';
import { closePartnerDb, openPartnerDb } from './partner-db';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow, PartnerWebhookRow } from '../src/entities';
import { WebhookSecrets } from '../src/domain/webhook-secrets';
import { PartnerDeliveries } from '../src/domain/webhooks/deliveries';
import { MAX_WEBHOOKS_PER_PROVIDER, newDeliveryId } from '../src/domain/webhooks/rules';
import { PartnerWebhooks } from '../src/domain/webhooks/webhooks';

const URL = 'https://93.184.215.14/hooks';

function provider(orgId = newId(), scopes = [ApiScope.PARTNER_ADMIN]): Principal {
  return { ...apiKeyPrincipal(orgId, scopes), orgKind: OrgKind.TECH_PROVIDER };
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected the call to fail');
}

describe('PartnerWebhooks', () => {
  let dataSource: DataSource;
  let webhooks: PartnerWebhooks;
  let deliveries: PartnerDeliveries;
  let clock = new Date('2026-11-25T12:00:00.000Z');
  const replays: { orgId: string; deliveryId: string }[] = [];

  before(async () => {
    dataSource = await openPartnerDb('partner-webhooks');
    const secrets = new WebhookSecrets(new SecretKeyring([{ id: 'k1', key: randomBytes(32) }]), 3_600_000);
    webhooks = new PartnerWebhooks(dataSource, secrets, { allowInsecure: false }, () => clock);
    deliveries = new PartnerDeliveries(dataSource, () => ({
      // The engine's replay (tested in delivery.test): here only who is asked, and what it answers is logged.
      replay: async (orgId, deliveryId) => {
        replays.push({ orgId, deliveryId });
        return dataSource.manager.findOneByOrFail(PartnerDeliveryRow, { orgId, id: deliveryId });
      },
    }));
  });

  after(async () => {
    await closePartnerDb(dataSource);
  });

  /** A delivery of `webhook` as the delivery engine writes one, with `attempts` failed attempts. */
  async function delivery(webhook: PartnerWebhookRow, status: DeliveryStatus, attempts = 0, at = clock) {
    const row: PartnerDeliveryRow = {
      id: newDeliveryId(),
      orgId: webhook.orgId,
      webhookId: webhook.id,
      clientOrgId: newId(),
      eventId: newId(),
      eventType: 'message.created',
      contactId: null,
      payload: '{}',
      status,
      attemptCount: attempts,
      nextAttemptAt: null,
      createdAt: at,
      deliveredAt: null,
      updatedAt: at,
    };
    await dataSource.manager.insert(PartnerDeliveryRow, row);
    for (let attempt = 1; attempt <= attempts; attempt++)
      await dataSource.manager.insert(PartnerDeliveryAttemptRow, {
        id: newId(),
        orgId: webhook.orgId,
        deliveryId: row.id,
        attempt,
        attemptedAt: at,
        statusCode: 500,
        latencyMs: 12,
        responseExcerpt: 'oops',
        error: null,
      });
    return row;
  }

  it('registers with sorted, deduplicated kinds and shows the secret once', async () => {
    const admin = provider();
    const { webhook, secret } = await webhooks.register(admin, {
      url: URL,
      events: ['message.created', 'contact.erased', 'message.created'],
      description: '  CRM sync ',
    });
    expect(secret).to.match(/^whsec_/);
    expect(webhook.events).to.deep.equal(['contact.erased', 'message.created']);
    expect(webhook.description).to.equal('CRM sync');
    expect(webhook.status).to.equal(WebhookStatus.ENABLED);
    const stored = await dataSource.manager.findOneByOrFail(PartnerWebhookRow, { id: webhook.id });
    expect(stored.secretSealed).not.to.include(secret.slice('whsec_'.length));
    const listed = await webhooks.list(admin, { page: undefined });
    expect(listed.webhooks.map((w) => w.id)).to.deep.equal([webhook.id]);
  });

  it('refuses empty and unknown event kinds, naming events', async () => {
    for (const events of [[], ['message.created', 'message.exploded']]) {
      const error = await failure(webhooks.register(provider(), { url: URL, events }));
      expect(error.code).to.equal('BAD_USER_INPUT');
      expect(error.details.field).to.equal('events');
    }
  });

  it(`refuses a provider's webhook beyond ${MAX_WEBHOOKS_PER_PROVIDER}`, async () => {
    const admin = provider();
    for (let i = 0; i < MAX_WEBHOOKS_PER_PROVIDER; i++)
      await webhooks.register(admin, { url: `${URL}/${i}`, events: ['message.created'] });
    const error = await failure(webhooks.register(admin, { url: URL, events: ['message.created'] }));
    expect(error.code).to.equal('CONFLICT');
    expect(error.message).to.include(`at most ${MAX_WEBHOOKS_PER_PROVIDER}`);
    expect((await webhooks.list(admin, { page: { limit: 100 } })).totalCount).to.equal(MAX_WEBHOOKS_PER_PROVIDER);
  });

  it('is for TECH_PROVIDER principals holding PARTNER_ADMIN: keys, owner and admin sessions', async () => {
    const orgId = newId();
    const standard = { ...apiKeyPrincipal(orgId, [ApiScope.PARTNER_ADMIN]), orgKind: OrgKind.STANDARD };
    const withoutScope = provider(orgId, [ApiScope.MESSAGES_READ]);
    const agent = {
      ...principalFor(PrincipalKind.MEMBER_SESSION, orgId, [ApiScope.MESSAGES_READ]),
      orgKind: OrgKind.TECH_PROVIDER,
      role: MemberRole.AGENT,
    };
    for (const principal of [standard, withoutScope, agent]) {
      const error = await failure(webhooks.list(principal, { page: undefined }));
      expect(error.code).to.equal('FORBIDDEN');
    }
    const owner = {
      ...principalFor(PrincipalKind.MEMBER_SESSION, orgId, [ApiScope.PARTNER_ADMIN]),
      orgKind: OrgKind.TECH_PROVIDER,
    };
    expect((await webhooks.list(owner, { page: undefined })).totalCount).to.equal(0);
  });

  it("answers another org's webhook NOT_FOUND like an unknown one, and a malformed id INVALID_ARGUMENT", async () => {
    const { webhook } = await webhooks.register(provider(), { url: URL, events: ['message.created'] });
    const other = provider();
    for (const id of [webhook.id, newId()]) {
      for (const call of [
        () => webhooks.rotateSecret(other, id),
        () => webhooks.setEvents(other, { webhookId: id, events: ['contact.created'] }),
        () => webhooks.setStatus(other, { webhookId: id, status: WebhookStatus.DISABLED }),
        () => webhooks.delete(other, id),
        () => deliveries.list(other, { webhookId: id, page: undefined }),
      ])
        expect((await failure(call())).code).to.equal('NOT_FOUND');
    }
    const malformed = await failure(webhooks.rotateSecret(other, 'nope'));
    expect(malformed.code).to.equal('BAD_USER_INPUT');
    expect(malformed.details.field).to.equal('webhookId');
  });

  it('rotates: the answer carries the new secret and when the previous stops signing', async () => {
    const admin = provider();
    const { webhook, secret } = await webhooks.register(admin, { url: URL, events: ['message.created'] });
    const rotated = await webhooks.rotateSecret(admin, webhook.id);
    expect(rotated.secret)
      .to.match(/^whsec_/)
      .and.not.equal(secret);
    expect(rotated.webhook.previousSecretExpiresAt?.toISOString()).to.equal('2026-11-25T13:00:00.000Z');
  });

  it('disabling by hand is MANUAL; enabling clears the reason and the failure run and releases held deliveries', async () => {
    const admin = provider();
    const { webhook } = await webhooks.register(admin, { url: URL, events: ['message.created'] });
    const disabled = await webhooks.setStatus(admin, { webhookId: webhook.id, status: WebhookStatus.DISABLED });
    expect(disabled.disabledReason).to.equal(PartnerWebhookDisabledReason.MANUAL);
    expect(disabled.disabledAt?.toISOString()).to.equal(clock.toISOString());
    await dataSource.manager.update(PartnerWebhookRow, { id: webhook.id }, { failingSince: clock });
    const held = await delivery(webhook, DeliveryStatus.HELD);
    const failed = await delivery(webhook, DeliveryStatus.FAILED, 2);
    clock = new Date(clock.getTime() + 60_000);
    const enabled = await webhooks.setStatus(admin, { webhookId: webhook.id, status: WebhookStatus.ENABLED });
    expect(enabled).to.include({
      status: WebhookStatus.ENABLED,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
    });
    const after = await dataSource.manager.findOneByOrFail(PartnerDeliveryRow, { id: held.id });
    expect(after.status).to.equal(DeliveryStatus.PENDING);
    expect(after.nextAttemptAt?.toISOString()).to.equal(clock.toISOString());
    expect((await dataSource.manager.findOneByOrFail(PartnerDeliveryRow, { id: failed.id })).status).to.equal(
      DeliveryStatus.FAILED,
    );
    const error = await failure(
      webhooks.setStatus(admin, { webhookId: webhook.id, status: WebhookStatus.STATUS_UNSPECIFIED }),
    );
    expect(error.details.field).to.equal('status');
  });

  it('lists deliveries newest first with their attempts, by status, in pages', async () => {
    const admin = provider();
    const { webhook } = await webhooks.register(admin, { url: URL, events: ['message.created'] });
    const t0 = clock.getTime();
    const first = await delivery(webhook, DeliveryStatus.FAILED, 3, new Date(t0));
    const second = await delivery(webhook, DeliveryStatus.DELIVERED, 1, new Date(t0 + 1000));
    const third = await delivery(webhook, DeliveryStatus.FAILED, 0, new Date(t0 + 2000));
    const all = await deliveries.list(admin, { webhookId: webhook.id, page: undefined });
    expect(all.deliveries.map((d) => d.delivery.id)).to.deep.equal([third.id, second.id, first.id]);
    expect(all.deliveries[2]?.attempts.map((a) => a.attempt)).to.deep.equal([1, 2, 3]);
    const failedOnly = await deliveries.list(admin, {
      webhookId: webhook.id,
      status: DeliveryStatus.FAILED,
      page: { limit: 1, offset: 1 },
    });
    expect(failedOnly.deliveries.map((d) => d.delivery.id)).to.deep.equal([first.id]);
    expect(failedOnly.totalCount).to.equal(2);
  });

  it("replays a delivery of the org through the engine; another org's is NOT_FOUND, a malformed id INVALID_ARGUMENT", async () => {
    const admin = provider();
    const { webhook } = await webhooks.register(admin, { url: URL, events: ['message.created'] });
    const failed = await delivery(webhook, DeliveryStatus.FAILED, 2);
    replays.length = 0;
    const replayed = await deliveries.replay(admin, failed.id);
    expect(replays).to.deep.equal([{ orgId: admin.orgId, deliveryId: failed.id }]);
    expect(replayed.delivery).to.include({ id: failed.id, attemptCount: 2 });
    expect(replayed.attempts).to.have.length(2);
    expect((await failure(deliveries.replay(provider(), failed.id))).code).to.equal('NOT_FOUND');
    expect((await failure(deliveries.replay(admin, newDeliveryId()))).code).to.equal('NOT_FOUND');
    expect((await failure(deliveries.replay(admin, webhook.id))).details.field).to.equal('deliveryId');
    expect(replays).to.have.length(1);
  });

  it('deletes the webhook with its deliveries and attempts, nothing of another webhook', async () => {
    const admin = provider();
    const { webhook } = await webhooks.register(admin, { url: URL, events: ['message.created'] });
    const { webhook: kept } = await webhooks.register(admin, { url: URL, events: ['message.created'] });
    const gone = await delivery(webhook, DeliveryStatus.FAILED, 2);
    const stays = await delivery(kept, DeliveryStatus.FAILED, 2);
    await webhooks.delete(admin, webhook.id);
    expect(await dataSource.manager.countBy(PartnerWebhookRow, { id: webhook.id })).to.equal(0);
    expect(await dataSource.manager.countBy(PartnerDeliveryRow, { id: gone.id })).to.equal(0);
    expect(await dataSource.manager.countBy(PartnerDeliveryAttemptRow, { deliveryId: gone.id })).to.equal(0);
    expect(await dataSource.manager.countBy(PartnerDeliveryAttemptRow, { deliveryId: stays.id })).to.equal(2);
    expect((await failure(webhooks.delete(admin, webhook.id))).code).to.equal('NOT_FOUND');
  });
});
