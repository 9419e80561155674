import { IsNull, Not, type DataSource } from 'typeorm';
import { ChannelType } from '@svc/proto/channels/v1';
import { Counter, enqueueEvents, metricsRegistry, type Logger, type OutboxRelay } from '@svc/kit';
import type { ChannelsConfig } from '../config';
import { platformWebhookEvent } from '../domain/events';
import { PlatformChannelRow } from '../entities';
import type { PlatformChannelType } from '../entities/platform-channel';
import type { ConnectedChannel, InboundRequest, PlatformAccount } from '../platforms/adapter';
import { hubHandshake } from '../platforms/graph/handshake';
import { verifyHubSignature } from '../platforms/graph/signature';
import { APP_WEBHOOK_SEGMENTS, installationApp } from './app-webhooks';
import { channelBody, splitAppWebhook, type AccountRef, type WebhookPart } from './app-webhook-split';
import {
  MAX_INBOUND_BODY_BYTES,
  handshakeAnswer,
  json,
  type ChannelLoader,
  type InboundAnswer,
} from './inbound-webhooks';

const droppedEntries = new Counter({
  name: 'svc_channels_app_webhook_dropped_total',
  help: 'Parts of app-level webhooks (/channels/in/app/*) for accounts no connected channel has, dropped (decision 0146).',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

const UNKNOWN = () => json(404, 'unknown_channel', { message: 'No such endpoint.' });

/**
 * `/channels/in/app/<kind>` (decision 0146): the webhook callback of the installation's own platform app, which serves
 * every channel connected through the hosted connect. The body is verified with the app's secret before anything
 * reads it, split by account, and each connected channel's share written to the outbox as that channel's
 * `platform_webhook.received` in one transaction, then answered 200. Shares for accounts no channel has are counted
 * and dropped: the platform would retry them for days and they can never be delivered.
 */
export class AppInboundWebhooks {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly channels: ChannelLoader,
    private readonly config: ChannelsConfig,
    private readonly logger: Logger,
  ) {}

  /** The platform's `hub.*` GET check of the app's callback, against the installation's verify token. */
  handshake(segment: string, request: InboundRequest): Promise<InboundAnswer> {
    const app = this.appOf(segment);
    if (!app) return Promise.resolve(UNKNOWN());
    return Promise.resolve(handshakeAnswer(hubHandshake(app.verifyToken, request), app.type));
  }

  async receive(
    segment: string,
    request: Omit<InboundRequest, 'rawBody'> & { rawBody?: Buffer },
  ): Promise<InboundAnswer> {
    const app = this.appOf(segment);
    if (!app) return UNKNOWN();
    const kind = app.type;
    if (!request.rawBody)
      return json(413, 'too_large', { message: `The body is larger than ${MAX_INBOUND_BODY_BYTES} bytes.` }, kind);
    const rawBody = request.rawBody;
    const verified = verifyHubSignature(app.appSecret, { ...request, rawBody });
    if (!verified.ok) {
      this.logger.warn({ kind, reason: verified.reason }, 'app-level webhook refused');
      return json(401, 'unauthorized', { message: 'The signature does not verify.' }, kind);
    }
    let split: ReturnType<typeof splitAppWebhook>;
    try {
      split = splitAppWebhook(kind, rawBody);
    } catch (error) {
      this.logger.warn({ kind, reason: (error as Error).message }, 'app-level webhook unreadable');
      return json(400, 'unreadable', { message: 'The body is not a webhook of this platform.' }, kind);
    }
    const shares = new Map<string, { channel: ConnectedChannel; entries: Record<string, unknown>[] }>();
    for (const part of split.parts) {
      const channels = await this.channelsOf(kind, part.ref);
      if (channels.length === 0) this.drop(kind, part);
      for (const channel of channels) {
        const share = shares.get(channel.channelId) ?? { channel, entries: [] };
        share.entries.push(part.entry);
        shares.set(channel.channelId, share);
      }
    }
    if (shares.size > 0) {
      const at = new Date();
      await this.dataSource.transaction((manager) =>
        enqueueEvents(
          manager,
          [...shares.values()].map(({ channel, entries }) =>
            platformWebhookEvent(channel, channelBody(split.object, entries), at),
          ),
        ),
      );
      this.relay().nudge();
    }
    return json(200, 'accepted', {}, kind);
  }

  private appOf(segment: string) {
    const type = APP_WEBHOOK_SEGMENTS.get(segment);
    return type === undefined ? undefined : installationApp(this.config, type);
  }

  private drop(kind: PlatformChannelType, part: WebhookPart): void {
    droppedEntries.inc({ kind: ChannelType[kind] });
    this.logger.warn(
      { kind: ChannelType[kind], account: part.ref.id, by: part.ref.by },
      'app-level webhook part for an account no connected channel has: dropped',
    );
  }

  /** The connected channels (paused ones included, decision 0120) a part is for. */
  private async channelsOf(kind: PlatformChannelType, ref: AccountRef): Promise<ConnectedChannel[]> {
    const rows =
      ref.by === 'account'
        ? await this.dataSource.manager.find(PlatformChannelRow, {
            where: { connectedAccount: `${ChannelType[kind]}:${ref.id}` },
            select: { id: true },
          })
        : (
            await this.dataSource.manager.find(PlatformChannelRow, {
              where: { type: kind, connectedAccount: Not(IsNull()) },
              select: { id: true, account: true },
            })
          ).filter((row) => (JSON.parse(row.account) as PlatformAccount).details.businessAccountId === ref.id);
    const channels: ConnectedChannel[] = [];
    for (const row of rows) {
      const loaded = await this.channels.load(row.id);
      if (loaded && !loaded.disconnected) channels.push(loaded.channel);
    }
    return channels;
  }
}
