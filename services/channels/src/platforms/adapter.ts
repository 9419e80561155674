import type { z } from 'zod';
import type { PlatformChannelType } from '../entities/platform-channel';

/**
 * The one seam between the channels service and a messaging platform (issue 16). Each kind implements it in
 * `platforms/<kind>/` to the protocol of the real platform of its shape, against a configurable base URL (tests point
 * it at a fake in `tests/fakes/`). Adapters are stateless: everything about a channel comes in `ConnectedChannel`.
 * Nothing here touches the database, the bus or another service.
 */

/** What the platform said about the account when its credentials were checked: stored as JSON, never secret. */
export interface PlatformAccount {
  /** The platform's id of the account: phone number id, bot id, Viber account id, page id. */
  externalId: string;
  /** What agents see: a display phone number, `@bot_username`, the public account's or page's name. */
  displayName: string;
  /** Further non-secret facts the kind needs later (e.g. CHAT_APP_A's business account id). */
  details: Record<string, string>;
}

/** One connected channel as an adapter sees it: credentials opened, webhook secret in plain text. */
export interface ConnectedChannel {
  channelId: string;
  orgId: string;
  type: PlatformChannelType;
  account: PlatformAccount;
  /** The kind's credentials, as its `credentialsSchema` parsed them. */
  credentials: Record<string, string>;
  /** The secret generated at connect time that the platform presents back (secret token, GET verify token). */
  webhookSecret: string;
}

/** An inbound HTTP request to `/channels/in/:channelId`, before anything is parsed. */
export interface InboundRequest {
  method: 'GET' | 'POST';
  /** Header names lower-cased. */
  headers: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, string | undefined>>;
  rawBody: Buffer;
}

/** The installation app's webhook (decision 0146): one callback for all its accounts, checked with this token. */
export interface AppLevelWebhook {
  verifyToken: string;
}

export type Verification = { ok: true } | { ok: false; reason: string };

/** The answer to a platform's GET subscription handshake (`hub.challenge` echo). */
export interface HandshakeAnswer {
  status: number;
  body: string;
}

/** The platform user behind an inbound message: resolved to a CHANNEL_USER_ID identity scoped to the channel. */
export interface PlatformUser {
  platformUserId: string;
  name?: string;
  /** E.164 when the platform tells it (CHAT_APP_A's wa_id). */
  phone?: string;
  username?: string;
}

/** An attachment as the platform names it; `fetchMedia` turns it into bytes. */
export interface PlatformMediaRef {
  ref: string;
  mimeType?: string;
  fileName?: string;
}

export type InboundContent =
  | { type: 'TEXT'; text: string }
  | { type: 'MEDIA'; media: PlatformMediaRef[]; caption?: string }
  | { type: 'LOCATION'; latitude: number; longitude: number; name?: string; address?: string }
  | { type: 'CONTACT_CARD'; name: string; phones: string[]; emails: string[] }
  /** A tap on a reply button or a quick reply the business sent: its title, and its payload/id when the platform has one. */
  | { type: 'BUTTON_REPLY'; text: string; payload: string }
  /** Something the inbox cannot show (a sticker kind, a poll…): recorded as a text saying so, never dropped. */
  | { type: 'UNSUPPORTED'; description: string };

export interface InboundMessage {
  kind: 'message';
  /** Deduplicates: a redelivered webhook names the same id. */
  platformMessageId: string;
  from: PlatformUser;
  sentAt: Date;
  content: InboundContent;
  replyToPlatformMessageId?: string;
}

export type PlatformDeliveryStatus = 'SENT' | 'DELIVERED' | 'READ' | 'FAILED';

/** A status callback about one message we sent. */
export interface InboundStatus {
  kind: 'status';
  platformMessageId: string;
  status: PlatformDeliveryStatus;
  at: Date;
  /** FAILED: the platform's code and words. */
  failure?: { code: string; message: string };
}

/** SOCIAL_APP_D's `message_deliveries` / `message_reads`: everything sent to the user up to `upTo` moved on. */
export interface InboundWatermark {
  kind: 'watermark';
  platformUserId: string;
  status: 'DELIVERED' | 'READ';
  upTo: Date;
}

/** CHAT_APP_A's `message_template_status_update`. */
export interface InboundTemplateStatus {
  kind: 'template_status';
  /** The platform's template id. */
  templateId: string;
  name: string;
  language: string;
  /** As the platform spells it: APPROVED, REJECTED, PAUSED, … */
  status: string;
  reason?: string;
}

export type InboundEvent = InboundMessage | InboundStatus | InboundWatermark | InboundTemplateStatus;

export type OutboundContent =
  | { type: 'TEXT'; text: string }
  /** Links the platform fetches (the inbox's signed media URLs). */
  | { type: 'MEDIA'; media: { url: string; mimeType: string; fileName: string }[]; caption?: string }
  | { type: 'LOCATION'; latitude: number; longitude: number; name?: string; address?: string }
  | { type: 'CONTACT_CARD'; name: string; phones: string[]; emails: string[] }
  | { type: 'BUTTONS'; text: string; buttons: { id: string; title: string }[] }
  /** CHAT_APP_A only: an approved template by name and language, with its components' parameters. */
  | { type: 'TEMPLATE'; name: string; language: string; components: TemplateComponentParameters[] };

export interface TemplateComponentParameters {
  /** `header`, `body` or `button`. */
  type: string;
  /** For buttons: which one, and its sub type (`quick_reply`, `url`). */
  index?: number;
  subType?: string;
  parameters: { type: 'text'; text: string }[];
}

export interface OutboundMessage {
  /** Our message id: the idempotency key where the platform takes one. */
  messageId: string;
  /** The platform user id of the chat's contact (CHAT_APP_A: the wa_id / phone). */
  recipient: string;
  content: OutboundContent;
  replyToPlatformMessageId?: string;
  /**
   * Resume: the parts (split text, one media item each…) before this index were taken by an earlier attempt, whose
   * failure named them; they are not posted again (decision 0141). The adapter splits the same content the same way.
   */
  fromPart?: number;
}

/**
 * Why a platform call failed, classified by the platform's own rules (each adapter's README cites them): `transient`
 * is worth retrying with backoff (rate limits, 5xx, timeouts); anything else fails at once.
 */
export interface PlatformError {
  transient: boolean;
  /** The platform's code (`131047`, `429`, `http_503`, `timeout`). */
  code: string;
  /** Readable, shown to agents as the failure reason. */
  message: string;
  /** The platform asked us to wait this long (Telegram's `retry_after`). */
  retryAfterMs?: number;
  /** The credentials are refused (expired/revoked token): the channel needs reauthorising. */
  reauthorize?: boolean;
  /** Outside the platform's messaging window: only a template can reach the user now. */
  windowClosed?: boolean;
}

export class PlatformCallError extends Error {
  constructor(readonly error: PlatformError) {
    super(error.message);
    this.name = 'PlatformCallError';
  }
}

/**
 * `platformMessageIds`: one per part posted by this call, in order (from `fromPart` on). A failure names the parts this
 * call got taken before it (`partsTaken`, their platform ids in order), so a retry resumes after them.
 */
export type SendResult =
  { ok: true; platformMessageIds: string[] } | { ok: false; error: PlatformError; partsTaken?: string[] };

export interface PlatformAdapter {
  readonly type: PlatformChannelType;
  /** The credentials a caller gives to connect (zod): unknown keys refused, each field named in errors. */
  readonly credentialsSchema: z.ZodType<Record<string, string>>;
  /** Sends allowed per second per channel, and the burst (kit TokenBucket); the README says where the numbers come from. */
  readonly rateLimit: { perSecond: number; burst: number };
  /** Free-form sends need a user message within this many hours (undefined: no window). */
  readonly messagingWindowHours?: number;

  /** Checks the credentials at the platform; PlatformCallError when refused. */
  validate(credentials: Record<string, string>): Promise<PlatformAccount>;
  /**
   * Points the platform's webhook for the account at `url`, with the channel's secret; `appLevel` when `url` is the
   * installation app's endpoint serving every hosted-connected account of the kind (decision 0146).
   */
  registerWebhook(channel: ConnectedChannel, url: string, appLevel?: AppLevelWebhook): Promise<void>;
  /** Stops the platform's deliveries to us (disconnect). */
  unregisterWebhook(channel: ConnectedChannel): Promise<void>;
  /** Authenticates an inbound POST before anything else reads it: the signature over the raw body, or the secret token. */
  verify(channel: ConnectedChannel, request: InboundRequest): Verification;
  /** The GET verification handshake, when the platform has one. */
  handshake?(channel: ConnectedChannel, request: InboundRequest): HandshakeAnswer;
  /**
   * What to answer a verified, accepted POST with, for platforms that take a method call in the webhook's response
   * (Telegram's "Making requests when getting updates"): a JSON object, or undefined for the usual empty `{}`.
   * Must not throw: a body it cannot read answers undefined.
   */
  webhookReply?(channel: ConnectedChannel, rawBody: Buffer): Record<string, unknown> | undefined;
  /** The events of one verified body; a body it cannot read throws (the consumer dead-letters it). */
  parse(channel: ConnectedChannel, rawBody: Buffer): InboundEvent[];
  fetchMedia(
    channel: ConnectedChannel,
    media: PlatformMediaRef,
  ): Promise<{ bytes: Buffer; mimeType?: string; fileName?: string }>;
  /** Posts the message's parts from `message.fromPart` on (see `SendResult`; every adapter uses `sendParts`). */
  send(channel: ConnectedChannel, message: OutboundMessage): Promise<SendResult>;
}
