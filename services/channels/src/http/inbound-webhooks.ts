import type { DataSource } from 'typeorm';
import { enqueueEvents, isId, type Logger, type OutboxRelay } from '@svc/kit';
import type { LoadedPlatformChannel } from '../domain/platform-channels';
import { platformWebhookEvent } from '../domain/events';
import type { HandshakeAnswer, InboundRequest } from '../platforms/adapter';
import type { PlatformAdapters } from '../platforms/registry';

/**
 * The most a platform's request body may be (decision 0135). The accepted body travels byte for byte in one bus
 * record, and Kafka refuses a record over its 1 MB default `message.max.bytes`; the envelope around it is a few hundred
 * bytes. Platforms' webhook bodies are a few KB (a WhatsApp-shaped batch of statuses stays far below).
 */
export const MAX_INBOUND_BODY_BYTES = 960 * 1024;

/** Why a request was answered as it was: the metric's `outcome` label and the log's. */
export type InboundOutcome =
  | 'accepted'
  | 'handshake'
  | 'handshake_refused'
  | 'unknown_channel'
  | 'unauthorized'
  | 'too_large'
  | 'method_not_allowed'
  | 'unreadable';

export interface InboundAnswer {
  status: number;
  body: string;
  contentType: 'application/json' | 'text/plain';
  outcome: InboundOutcome;
  /** The channel's kind when it was found (the metric's `kind` label). */
  kind?: string;
}

/** What the receiver needs of `PlatformChannels`: any org's channel by id, secrets opened. */
export interface ChannelLoader {
  load(channelId: string): Promise<LoadedPlatformChannel | undefined>;
}

export const json = (
  status: number,
  outcome: InboundOutcome,
  body: Record<string, unknown>,
  kind?: string,
): InboundAnswer => ({
  status,
  body: JSON.stringify(body),
  contentType: 'application/json',
  outcome,
  kind,
});

/** A platform's GET handshake answered as the adapter (or the app, decision 0146) decided. */
export const handshakeAnswer = (answer: HandshakeAnswer, kind: string): InboundAnswer => ({
  status: answer.status,
  body: answer.body,
  contentType: 'text/plain',
  outcome: answer.status === 200 ? 'handshake' : 'handshake_refused',
  kind,
});

/** Unknown and disconnected channels are answered alike: the answer never tells whether an id existed. */
const UNKNOWN = (kind?: string) => json(404, 'unknown_channel', { message: 'No such channel.' }, kind);

/**
 * `/channels/in/:channelId` (decision 0135): the channel's adapter authenticates the request before anything reads
 * the body (signature over the raw bytes, or the secret-token header; never a token in the URL). An accepted body is
 * written to the outbox (`platform_webhook.received` on svc.channels.inbound.v1) in one transaction and answered 200
 * at once; the consumer (domain/inbound) parses and applies it from the topic, so nothing accepted is lost when the
 * process dies after answering, and the platform is never kept waiting on contacts or the inbox.
 */
export class InboundWebhooks {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly channels: ChannelLoader,
    private readonly adapters: PlatformAdapters,
    private readonly logger: Logger,
  ) {}

  /** A platform's GET subscription handshake (`hub.challenge`), for the kinds that have one. */
  async handshake(channelId: string, request: InboundRequest): Promise<InboundAnswer> {
    const loaded = await this.serving(channelId);
    if (!loaded) return UNKNOWN();
    const { channel } = loaded;
    const adapter = this.adapters.get(channel.type);
    if (!adapter?.handshake) return json(405, 'method_not_allowed', { message: 'Method Not Allowed' }, channel.type);
    return handshakeAnswer(adapter.handshake(channel, request), channel.type);
  }

  /** A platform's POST: `rawBody` undefined when it was larger than MAX_INBOUND_BODY_BYTES (never read whole). */
  async receive(
    channelId: string,
    request: Omit<InboundRequest, 'rawBody'> & { rawBody?: Buffer },
  ): Promise<InboundAnswer> {
    const loaded = await this.serving(channelId);
    if (!loaded) return UNKNOWN();
    const { channel } = loaded;
    const adapter = this.adapters.get(channel.type);
    if (!adapter) return UNKNOWN(channel.type);
    if (!request.rawBody)
      return json(
        413,
        'too_large',
        { message: `The body is larger than ${MAX_INBOUND_BODY_BYTES} bytes.` },
        channel.type,
      );
    const verified = adapter.verify(channel, { ...request, rawBody: request.rawBody });
    if (!verified.ok) {
      this.logger.warn({ channelId, kind: channel.type, reason: verified.reason }, 'inbound webhook refused');
      return json(401, 'unauthorized', { message: 'The signature or secret token does not verify.' }, channel.type);
    }
    const body = request.rawBody;
    await this.dataSource.transaction((manager) =>
      enqueueEvents(manager, [platformWebhookEvent(channel, body, new Date())]),
    );
    this.relay().nudge();
    return json(200, 'accepted', adapter.webhookReply?.(channel, body) ?? {}, channel.type);
  }

  /** A connected platform channel (paused and needing reauthorisation included: inbound is kept, decision 0120). */
  private async serving(channelId: string): Promise<LoadedPlatformChannel | undefined> {
    if (!isId(channelId)) return undefined;
    const loaded = await this.channels.load(channelId);
    return loaded && !loaded.disconnected ? loaded : undefined;
  }
}
