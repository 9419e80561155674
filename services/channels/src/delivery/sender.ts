import type { DataSource } from 'typeorm';
import {
  Counter,
  DeadlineExceeded,
  NotFound,
  Unavailable,
  detached,
  entitySql,
  metricsRegistry,
  now,
  type EntitySql,
  type Logger,
} from '@svc/kit';
import { ChannelStatus } from '@svc/proto/channels/v1';
import { DeliveryStatus } from '@svc/proto/inbox/v1';
import { ChannelRow, OutboundDeliveryRow, OutboundPlatformMessageRow, type FailureKind } from '../entities';
import type { LoadedPlatformChannel, PlatformChannels } from '../domain/platform-channels';
import type { OutboundContent, PlatformAdapter, PlatformError } from '../platforms/adapter';
import type { PlatformAdapters } from '../platforms/registry';
import type { DeliveryBackends } from './backends';
import { outboundContentOf, recipientOf } from './content';
import { DEFAULT_DELIVERY_RETRY, deliveryBackoffMs, mayRetry, type DeliveryRetryPolicy } from './policy';
import { ChannelRateLimits } from './rate-limits';
import type { Reauthorizations } from './reauthorization';
import { DeliveryReports, failureReason } from './reports';
import { templatePayloadOf } from '../domain/templates/template-sends';

const BATCH = 100;
const DELETED = 'deleted';
const CONCURRENCY = 8;

export interface SenderOptions {
  /** How often the sender looks for due messages without being woken (retries, resumed channels). */
  pollMs: number;
  /** How long a claimed attempt holds: longer than the slowest send (all parts, each up to PLATFORM_TIMEOUT_MS). */
  leaseMs: number;
  retry?: DeliveryRetryPolicy;
}

export const deliveries = new Counter({
  name: 'svc_channels_deliveries_total',
  help: 'Outbound platform messages by outcome: sent, retry (a transient platform error), failed (permanent or retries spent), in_doubt (an attempt with no recorded answer after a crash: FAILED, never resent on its own).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/** What a claimed attempt knows: the row as read, and the attempt count the claim wrote. */
interface Claimed {
  row: OutboundDeliveryRow;
  attempts: number;
}

/**
 * Sends queued outbound messages through their channel's adapter (docs/decisions/0141). Replica-safe: each attempt is
 * claimed with a conditional UPDATE (PENDING → SENDING, attempts + 1, a lease) that only one replica wins, and that
 * claim is the record of the attempt, written before the platform is called. Every later write applies only to the
 * attempt it claimed. An attempt whose lease ran out without an answer recorded (the process died mid-send) is IN
 * DOUBT: FAILED with that reason, never sent again on its own (none of the four platforms takes an idempotency key).
 * Messages of one chat are sent in order within a pass; channels not ACTIVE (PAUSED, NEEDS_REAUTHORIZATION) hold
 * theirs until they are ACTIVE again; a disconnected channel's queued messages FAIL.
 */
export class DeliverySender {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  private again = false;
  private running = false;
  private readonly rows: EntitySql<OutboundDeliveryRow>;
  private readonly retry: DeliveryRetryPolicy;
  private readonly limits = new ChannelRateLimits();
  private readonly reports: DeliveryReports;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: PlatformChannels,
    private readonly adapters: PlatformAdapters,
    private readonly backends: DeliveryBackends,
    private readonly reauthorizations: Reauthorizations,
    private readonly logger: Logger,
    private readonly options: SenderOptions,
  ) {
    this.rows = entitySql(dataSource, OutboundDeliveryRow);
    this.retry = options.retry ?? DEFAULT_DELIVERY_RETRY;
    this.reports = new DeliveryReports(dataSource, backends, logger);
  }

  start(): void {
    this.running = true;
    this.timer = detached(() => setInterval(() => this.wake(), this.options.pollMs));
    this.timer.unref();
    this.wake();
  }

  /** Stops claiming; attempts already running finish and record their answer. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    await this.pass;
  }

  /** Runs one pass now and waits for it (and any pass before it): tests see what a pass left. */
  async runOnce(): Promise<void> {
    this.wake();
    await this.pass;
  }

  wake(): void {
    if (!this.running || this.again) return;
    this.again = true;
    detached(() => {
      this.pass = this.pass.then(async () => {
        this.again = false;
        try {
          await this.recoverInDoubt();
          await this.reports.reportPending();
          while (this.running && (await this.sendDue()) > 0);
        } catch (error) {
          this.logger.warn({ err: error }, 'delivery pass failed; will retry');
        }
      });
    });
  }

  /** The due messages of channels that may send, oldest first; answers how many attempts were claimed. */
  private async sendDue(): Promise<number> {
    const rows = this.rows;
    const channels = entitySql(this.dataSource, ChannelRow);
    const due = await rows.select(
      this.dataSource.manager,
      `WHERE ${rows.column('state')} = ? AND ${rows.column('nextAttemptAt')} <= ? AND ${rows.column('channelId')} IN ` +
        `(SELECT ${channels.column('id')} FROM ${channels.table} WHERE ${channels.column('status')} = ? OR ${channels.column('deletedAt')} IS NOT NULL) ` +
        `ORDER BY ${rows.column('nextAttemptAt')} ASC, ${rows.column('id')} ASC LIMIT ${BATCH}`,
      ['PENDING', rows.value('nextAttemptAt', now()), ChannelStatus.ACTIVE],
    );
    // One chat's messages one after another, in order; chats side by side.
    const byChat = new Map<string, OutboundDeliveryRow[]>();
    for (const row of due) byChat.set(row.chatId, [...(byChat.get(row.chatId) ?? []), row]);
    const queue = [...byChat.values()];
    const loaded = new Map<string, Promise<LoadedPlatformChannel | undefined>>();
    const channelOf = (id: string) => {
      let found = loaded.get(id);
      if (!found) loaded.set(id, (found = this.channels.load(id)));
      return found;
    };
    let claimed = 0;
    let waitMs = 0;
    const worker = async () => {
      for (let chat = queue.shift(); chat && this.running; chat = queue.shift()) {
        for (const row of chat) {
          const channel = await channelOf(row.channelId);
          const adapter = channel && this.adapters.get(channel.channel.type);
          if (channel && adapter && !channel.disconnected) {
            const wait = this.limits.take(row.channelId, adapter.rateLimit);
            // Out of tokens: this chat's later messages wait too (order), the pass goes on with other chats.
            if (wait > 0) {
              waitMs = waitMs ? Math.min(waitMs, wait) : wait;
              break;
            }
          }
          const attempt = await this.claim(row);
          if (!attempt) continue;
          claimed += 1;
          await this.attempt(attempt, channel, adapter);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (waitMs) setTimeout(() => this.wake(), waitMs).unref();
    return claimed;
  }

  /** PENDING → SENDING as read: the record of the attempt, before anything is sent. */
  private async claim(row: OutboundDeliveryRow): Promise<Claimed | undefined> {
    const at = now();
    const attempts = row.attempts + 1;
    const won = await this.rows.update(
      this.dataSource.manager,
      {
        state: 'SENDING',
        attempts,
        leaseUntil: new Date(at.getTime() + this.options.leaseMs),
        attemptStartedAt: at,
        updatedAt: at,
      },
      { id: row.id, state: 'PENDING', round: row.round, attempts: row.attempts },
    );
    return won ? { row, attempts } : undefined;
  }

  private async attempt(
    claimed: Claimed,
    loaded: LoadedPlatformChannel | undefined,
    adapter: PlatformAdapter | undefined,
  ): Promise<void> {
    const { row } = claimed;
    if (!loaded || loaded.disconnected)
      return this.fail(claimed, 'DISCONNECTED', {
        code: 'channel_disconnected',
        message: 'the channel was disconnected before the message was sent',
      });
    if (loaded.status !== ChannelStatus.ACTIVE) return this.release(claimed);
    if (!adapter)
      return this.fail(claimed, 'PERMANENT', { code: 'no_adapter', message: `no adapter for ${loaded.channel.type}` });
    let prepared: { recipient: string; content: OutboundContent } | PlatformError;
    try {
      prepared = await this.prepare(row);
    } catch (error) {
      return this.beforeSendFailed(claimed, error);
    }
    // A message deleted before it went out is simply not sent: nothing to tell the inbox about it.
    if ('transient' in prepared) return this.fail(claimed, 'PERMANENT', prepared, prepared.code !== DELETED);
    // Parts an earlier attempt got taken (split text, media items) are not posted again: resume after them.
    const taken = row.platformMessageIds ?? [];
    let result;
    try {
      result = await adapter.send(loaded.channel, { messageId: row.id, ...prepared, fromPart: taken.length });
    } catch (error) {
      // The adapter classifies every platform answer; anything else leaves us not knowing what the platform got.
      this.logger.error({ err: error, messageId: row.id, channelId: row.channelId }, 'platform send threw');
      deliveries.inc({ outcome: 'in_doubt' });
      return this.fail(claimed, 'IN_DOUBT', IN_DOUBT_ERROR);
    }
    if (result.ok) return this.sent(claimed, prepared.recipient, [...taken, ...result.platformMessageIds]);
    const error = result.error;
    const partsTaken = [...taken, ...(result.partsTaken ?? [])];
    if (error.reauthorize) {
      await this.reauthorizations.mark(loaded.channel.channelId, error);
      return this.release(claimed, partsTaken);
    }
    if (error.transient) return this.retryLater(claimed, error, partsTaken);
    return this.fail(claimed, error.windowClosed ? 'WINDOW_CLOSED' : 'PERMANENT', error, true, partsTaken);
  }

  /** The recipient and content: the inbox's message (or the template payload), the contact's platform user id. */
  private async prepare(
    row: OutboundDeliveryRow,
  ): Promise<{ recipient: string; content: OutboundContent } | PlatformError> {
    const { message } = await this.backends.messageForDelivery(row.orgId, row.id);
    if (!message || message.deleted)
      return { transient: false, code: DELETED, message: 'the message was deleted before it was sent' };
    const recipient =
      row.recipient ?? recipientOf(await this.backends.contact(row.orgId, row.contactId), row.channelId);
    if (!recipient)
      return { transient: false, code: 'no_recipient', message: 'the contact has no user id on this channel' };
    // A template send (sendChatAppATemplateMessage) recorded its TEMPLATE payload; `pending`: being recorded still.
    const template = await templatePayloadOf(this.dataSource, { messageId: row.id, chatId: row.chatId });
    if (template.kind === 'pending') throw new Unavailable('the template send of this chat is still being recorded');
    const content = template.kind === 'template' ? template.payload : outboundContentOf(message);
    if ('transient' in content) return content;
    return { recipient, content };
  }

  /** Contacts or the inbox failed before the platform was called: nothing was sent, so trying again is safe. */
  private async beforeSendFailed(claimed: Claimed, error: unknown): Promise<void> {
    if (error instanceof NotFound) {
      // The message or its contact is gone (a deleted chat): nothing to send and nobody to tell.
      await this.fail(claimed, 'PERMANENT', { code: 'not_found', message: error.message }, false);
      return;
    }
    const transient = error instanceof Unavailable || error instanceof DeadlineExceeded;
    if (!transient) this.logger.error({ err: error, messageId: claimed.row.id }, 'preparing a delivery failed');
    await this.retryLater(claimed, {
      transient: true,
      code: 'backend_unavailable',
      message: error instanceof Error ? error.message : String(error),
    });
  }

  private async sent(claimed: Claimed, recipient: string, platformMessageIds: string[]): Promise<void> {
    const { row } = claimed;
    const at = now();
    const recorded = await this.dataSource.transaction(async (manager) => {
      const changed = await this.rows.update(
        manager,
        {
          state: 'SENT',
          recipient,
          platformMessageIds,
          sentAt: at,
          leaseUntil: null,
          failureKind: null,
          inboxReported: false,
          updatedAt: at,
        },
        this.claimOf(claimed),
      );
      if (!changed) return false;
      await manager
        .createQueryBuilder()
        .insert()
        .into(OutboundPlatformMessageRow)
        .values(
          platformMessageIds.map((platformMessageId) => ({
            channelId: row.channelId,
            platformMessageId,
            messageId: row.id,
            orgId: row.orgId,
            chatId: row.chatId,
          })),
        )
        .orIgnore()
        .execute();
      return true;
    });
    if (!recorded) {
      this.logger.warn({ messageId: row.id, platformMessageIds }, 'sent after its attempt was declared in doubt');
      return;
    }
    deliveries.inc({ outcome: 'sent' });
    await this.reports.report(row.orgId, row.chatId, row.id, DeliveryStatus.SENT);
  }

  /** `partsTaken`: the platform ids of the parts taken so far (this attempt's and earlier ones'), kept to resume after. */
  private async retryLater(claimed: Claimed, error: PlatformError, partsTaken?: string[]): Promise<void> {
    const at = now();
    const next = new Date(at.getTime() + deliveryBackoffMs(claimed.attempts, this.retry, error.retryAfterMs));
    if (!mayRetry(claimed.attempts, claimed.row.queuedAt, next, this.retry)) {
      await this.fail(
        claimed,
        'EXHAUSTED',
        { ...error, message: `${error.message} (gave up after ${claimed.attempts} attempts)` },
        true,
        partsTaken,
      );
      return;
    }
    deliveries.inc({ outcome: 'retry' });
    this.logger.warn(
      { messageId: claimed.row.id, code: error.code, attempt: claimed.attempts, next },
      'platform send failed transiently; retrying',
    );
    await this.rows.update(
      this.dataSource.manager,
      {
        state: 'PENDING',
        nextAttemptAt: next,
        leaseUntil: null,
        ...partsTakenOf(partsTaken),
        failureCode: error.code,
        failureMessage: error.message,
        updatedAt: at,
      },
      this.claimOf(claimed),
    );
    setTimeout(() => this.wake(), next.getTime() - at.getTime()).unref();
  }

  /** Gives the claim back unspent: the channel is held (PAUSED, NEEDS_REAUTHORIZATION). */
  private async release(claimed: Claimed, partsTaken?: string[]): Promise<void> {
    await this.rows.update(
      this.dataSource.manager,
      {
        state: 'PENDING',
        attempts: claimed.attempts - 1,
        leaseUntil: null,
        ...partsTakenOf(partsTaken),
        updatedAt: now(),
      },
      this.claimOf(claimed),
    );
  }

  private async fail(
    claimed: Claimed,
    kind: FailureKind,
    error: Pick<PlatformError, 'code' | 'message'>,
    report = true,
    partsTaken?: string[],
  ) {
    const { row } = claimed;
    const at = now();
    const changed = await this.rows.update(
      this.dataSource.manager,
      {
        state: 'FAILED',
        failureKind: kind,
        failureCode: error.code,
        failureMessage: error.message,
        leaseUntil: null,
        ...partsTakenOf(partsTaken),
        inboxReported: !report,
        updatedAt: at,
      },
      this.claimOf(claimed),
    );
    if (!changed) return;
    if (kind !== 'IN_DOUBT') deliveries.inc({ outcome: 'failed' });
    this.logger.warn({ messageId: row.id, channelId: row.channelId, kind, code: error.code }, 'delivery failed');
    if (report) await this.reports.report(row.orgId, row.chatId, row.id, DeliveryStatus.FAILED, failureReasonOf(error));
  }

  private claimOf(claimed: Claimed) {
    return { id: claimed.row.id, state: 'SENDING' as const, round: claimed.row.round, attempts: claimed.attempts };
  }

  /**
   * Attempts whose lease ran out with no answer recorded: the replica died between recording the attempt and recording
   * the platform's answer, so the platform may or may not have the message. FAILED as IN_DOUBT (decision 0141).
   */
  private async recoverInDoubt(): Promise<void> {
    const rows = this.rows;
    const expired = await rows.select(
      this.dataSource.manager,
      `WHERE ${rows.column('state')} = ? AND ${rows.column('leaseUntil')} <= ? LIMIT ${BATCH}`,
      ['SENDING', rows.value('leaseUntil', now())],
    );
    for (const row of expired) {
      const changed = await rows.update(
        this.dataSource.manager,
        {
          state: 'FAILED',
          failureKind: 'IN_DOUBT',
          failureCode: IN_DOUBT_ERROR.code,
          failureMessage: IN_DOUBT_ERROR.message,
          leaseUntil: null,
          inboxReported: false,
          updatedAt: now(),
        },
        { id: row.id, state: 'SENDING', round: row.round, attempts: row.attempts },
      );
      if (!changed) continue;
      deliveries.inc({ outcome: 'in_doubt' });
      this.logger.warn(
        { messageId: row.id, channelId: row.channelId, attemptStartedAt: row.attemptStartedAt },
        'delivery in doubt: an attempt started and no answer was recorded; not sent again',
      );
      await this.reports.report(row.orgId, row.chatId, row.id, DeliveryStatus.FAILED, failureReasonOf(IN_DOUBT_ERROR));
    }
  }
}

/**
 * What agents read on an in-doubt message: the platform may have delivered it. retryFailedMessage sends it again when
 * they decide it did not arrive.
 */
export const IN_DOUBT_ERROR = {
  code: 'in_doubt',
  message:
    'delivery unknown: the send was interrupted before the platform answered; the contact may or may not have ' +
    'received it (retry only if it did not arrive)',
};

/** The parts taken so far, recorded on the attempt's row so the next attempt (or round) resumes after them. */
function partsTakenOf(partsTaken: string[] | undefined): { platformMessageIds?: string[] } {
  return partsTaken?.length ? { platformMessageIds: partsTaken } : {};
}

function failureReasonOf(error: Pick<PlatformError, 'code' | 'message'>): string {
  return failureReason(error.code, error.message);
}
