import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ChannelStatus, ChannelType } from '@svc/proto/channels/v1';
import { newId, now } from '@svc/kit';
import type { DataSource } from 'typeorm';
import { ChannelRow, PlatformChannelRow } from '../../src/entities';
import type { PlatformChannelType } from '../../src/entities/platform-channel';
import type { PlatformChannels } from '../../src/domain/platform-channels';
import type {
  ConnectedChannel,
  InboundEvent,
  InboundRequest,
  PlatformAdapter,
  PlatformMediaRef,
  OutboundMessage,
  SendResult,
} from '../../src/platforms/adapter';

/** The header the test kinds sign with: hex HMAC-SHA256 of the raw body keyed with the channel's webhook secret. */
export const TEST_SIGNATURE = 'x-test-signature';

export function sign(body: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * A platform adapter for the route and consumer tests: signs like Viber (HMAC of the raw body in a header), shakes
 * hands like the Graph API (`hub.verify_token` / `hub.challenge`) when `handshakes`, and reads a body of
 * `{"events": [InboundEvent…]}` (dates as ISO text). Media refs are `fetchMedia` keys into `media`.
 */
export class TestAdapter implements PlatformAdapter {
  readonly credentialsSchema = z.record(z.string(), z.string());
  readonly rateLimit = { perSecond: 10, burst: 10 };
  readonly media = new Map<string, { bytes: Buffer; mimeType?: string; fileName?: string }>();
  parsed = 0;
  readonly handshake?: PlatformAdapter['handshake'];

  constructor(
    readonly type: PlatformChannelType,
    { handshakes = false } = {},
  ) {
    if (handshakes) this.handshake = graphHandshake;
  }

  validate(): Promise<never> {
    return Promise.reject(new Error('not used'));
  }
  registerWebhook(): Promise<void> {
    return Promise.resolve();
  }
  unregisterWebhook(): Promise<void> {
    return Promise.resolve();
  }

  verify(channel: ConnectedChannel, request: InboundRequest) {
    const given = Buffer.from(request.headers[TEST_SIGNATURE] ?? '', 'hex');
    const expected = Buffer.from(sign(request.rawBody, channel.webhookSecret), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected)
      ? ({ ok: true } as const)
      : ({ ok: false, reason: 'signature mismatch' } as const);
  }

  /** A body's `reply` object, as a platform answered in the webhook response would have it. */
  webhookReply(_channel: ConnectedChannel, rawBody: Buffer): Record<string, unknown> | undefined {
    const body = JSON.parse(rawBody.toString('utf8')) as { reply?: Record<string, unknown> };
    return body.reply;
  }

  parse(_channel: ConnectedChannel, rawBody: Buffer): InboundEvent[] {
    this.parsed += 1;
    const body = JSON.parse(rawBody.toString('utf8')) as { events?: Record<string, unknown>[] };
    if (!Array.isArray(body.events)) throw new Error('not a test platform body');
    return body.events.map((event) => {
      const dated = { ...event } as Record<string, unknown>;
      for (const key of ['sentAt', 'at', 'upTo']) if (typeof dated[key] === 'string') dated[key] = new Date(dated[key]);
      return dated as unknown as InboundEvent;
    });
  }

  fetchMedia(_channel: ConnectedChannel, ref: PlatformMediaRef) {
    const found = this.media.get(ref.ref);
    return found ? Promise.resolve(found) : Promise.reject(new Error(`no media ${ref.ref}`));
  }

  send(_channel: ConnectedChannel, _message: OutboundMessage): Promise<SendResult> {
    return Promise.reject(new Error('not used'));
  }
}

function graphHandshake(channel: ConnectedChannel, request: InboundRequest) {
  return request.query['hub.mode'] === 'subscribe' && request.query['hub.verify_token'] === channel.webhookSecret
    ? { status: 200, body: request.query['hub.challenge'] ?? '' }
    : { status: 403, body: 'verify token mismatch' };
}

/** Inserts a connected platform channel (as core's connect would), its webhook secret sealed. */
export async function insertPlatformChannel(
  dataSource: DataSource,
  channels: PlatformChannels,
  { orgId = newId(), type = ChannelType.CHAT_APP_C as PlatformChannelType, status = ChannelStatus.ACTIVE } = {},
): Promise<{ channelId: string; orgId: string; secret: string }> {
  const at = now();
  const id = newId(at);
  const secret = `secret-${id}`;
  await dataSource.getRepository(ChannelRow).insert({
    id,
    orgId,
    type,
    status,
    name: `Test ${type}`,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
  });
  await dataSource.getRepository(PlatformChannelRow).insert({
    id,
    orgId,
    type,
    connectedAccount: `${type}:${id}`,
    externalAccountId: id,
    account: JSON.stringify({ externalId: id, displayName: 'Test account', details: {} }),
    credentialsSealed: channels.sealCredentials({ token: 'test-token' }, { orgId, id }),
    webhookSecretSealed: channels.sealWebhookSecret(secret, { orgId, id }),
    aiAutoReply: false,
    authorizationError: '',
    connectedAt: at,
  });
  return { channelId: id, orgId, secret };
}
