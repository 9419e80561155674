import type { DataSource, EntityManager } from 'typeorm';
import { detached, entitySql, FailedPrecondition, newId, NotFound, now, type EntitySql, type Logger } from '@svc/kit';
import {
  PartnerWebhookDeliveryState_Status as DeliveryStatus,
  PartnerWebhookDisabledReason as DisabledReason,
  PartnerWebhookState_Status as WebhookStatus,
} from '@svc/proto/partner/v1/partner_webhooks';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow, PartnerWebhookRow } from '../../entities';
import { parseEndpointUrl, resolveEndpoint, type EndpointPolicy } from '../endpoint-address';
import { postOnce, type PostResult } from './http-post';
import { holdPending } from './holds';
import { outcomeOf, type Outcome } from './outcome';
import { FAILING_DISABLE_AFTER_MS } from './schedule';
import { signedHeaders, type SigningSecrets } from './signing';

export interface DeliveryEngineOptions {
  policy: EndpointPolicy;
  /** One attempt's limit, answer body included (PARTNER_DELIVERY_TIMEOUT_MS). */
  timeoutMs: number;
  /** Attempts in flight at once per replica (PARTNER_DELIVERY_CONCURRENCY). */
  concurrency: number;
  /** How often a replica looks for due deliveries besides being woken (PARTNER_DELIVERY_POLL_MS). */
  pollMs: number;
  /** The time the engine reads as now (tests move it). */
  clock?: () => Date;
  /** The jitter's source, in [0, 1) (tests pass a constant). */
  random?: () => number;
}

/**
 * A claimed attempt is pushed this far past its limit: a replica that died mid-attempt leaves the delivery to be
 * claimed again (a new attempt) once it passed.
 */
const CLAIM_MARGIN_MS = 60_000;

/**
 * Sends due deliveries (docs/partner-webhooks.md, docs/decisions/0244). Every replica runs one. An attempt is claimed
 * by a conditional update that raises `attempt_count` from the value read and moves `next_attempt_at` past the attempt's
 * limit: of two replicas (or a replica and a replay) that read the same delivery, one claims it, so one attempt is
 * never sent twice at once. The claimed attempt number is then written with the attempt's row and result; a result
 * lands only while the delivery still has that attempt number. At most `concurrency` attempts are in flight; a pass
 * runs when deliveries are created (`wake`), when an attempt ends, at the next due time, and every `pollMs`.
 */
export class DeliveryEngine {
  private readonly deliveries: EntitySql<PartnerDeliveryRow>;
  private readonly webhooks: EntitySql<PartnerWebhookRow>;
  private readonly clock: () => Date;
  private readonly inFlight = new Set<Promise<void>>();
  private interval: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private dueAt: number | undefined;
  private pass: Promise<void> = Promise.resolve();
  private again = false;
  private running = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly secrets: SigningSecrets,
    private readonly logger: Logger,
    private readonly options: DeliveryEngineOptions,
  ) {
    this.deliveries = entitySql(dataSource, PartnerDeliveryRow);
    this.webhooks = entitySql(dataSource, PartnerWebhookRow);
    this.clock = options.clock ?? now;
  }

  start(): void {
    this.running = true;
    this.interval = detached(() => setInterval(() => void this.wake(), this.options.pollMs));
    this.interval.unref();
    void this.wake();
  }

  /** Stops claiming; resolves once the attempts in flight ended and were recorded. */
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.interval);
    clearTimeout(this.dueTimer);
    await this.pass;
    await Promise.all([...this.inFlight]);
  }

  /** A pass soon (deliveries were created, or an attempt ended). */
  wake(): Promise<void> {
    if (!this.running || this.again) return this.pass;
    this.again = true;
    detached(() => {
      this.pass = this.pass.then(async () => {
        this.again = false;
        try {
          await this.launchDue();
        } catch (error) {
          this.logger.warn({ err: error }, 'partner delivery pass failed; will retry');
        }
      });
    });
    return this.pass;
  }

  /** One pass, and every attempt it started, to its end (tests drive the engine with a moved clock this way). */
  async sweepOnce(): Promise<number> {
    const started = await this.launchDue();
    await Promise.all([...this.inFlight]);
    return started;
  }

  /**
   * Sends `deliveryId` of provider `orgId` once more now, whatever its status: a new attempt under the same
   * `webhook-id`. A success makes it DELIVERED; a failure changes the schedule only of a PENDING delivery.
   */
  async replay(orgId: string, deliveryId: string): Promise<PartnerDeliveryRow> {
    for (;;) {
      const found = await this.find(orgId, deliveryId);
      if (!found.payload)
        throw new FailedPrecondition('the delivery was erased with its contact', { field: 'deliveryId' });
      const at = this.clock();
      const attempt = found.attemptCount + 1;
      const pending = found.status === DeliveryStatus.PENDING;
      const claimed = await this.deliveries.update(
        this.dataSource.manager,
        {
          attemptCount: attempt,
          nextAttemptAt: pending ? this.claimUntil(at) : undefined,
          updatedAt: at,
        },
        { id: deliveryId, attemptCount: found.attemptCount, status: found.status },
      );
      if (!claimed) continue; // a sweeper or another replay took this number: read it again
      await this.attempt(found, attempt, true);
      return this.find(orgId, deliveryId);
    }
  }

  private async find(orgId: string, deliveryId: string): Promise<PartnerDeliveryRow> {
    const found = await this.dataSource.manager.findOneBy(PartnerDeliveryRow, { id: deliveryId, orgId });
    if (!found) throw new NotFound('delivery not found', { field: 'deliveryId' });
    return found;
  }

  private claimUntil(at: Date): Date {
    return new Date(at.getTime() + this.options.timeoutMs + CLAIM_MARGIN_MS);
  }

  /** Claims due deliveries for the free slots and starts their attempts; answers how many it started. */
  private async launchDue(): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const at = this.clock();
    const { deliveries } = this;
    const due = await deliveries.select(
      this.dataSource.manager,
      `WHERE ${deliveries.column('status')} = ? AND ${deliveries.column('nextAttemptAt')} <= ? ` +
        `ORDER BY ${deliveries.column('nextAttemptAt')} ASC LIMIT ${free}`,
      [DeliveryStatus.PENDING, deliveries.value('nextAttemptAt', at)],
    );
    let started = 0;
    for (const delivery of due) {
      const attempt = delivery.attemptCount + 1;
      const claimed = await deliveries.update(
        this.dataSource.manager,
        { attemptCount: attempt, nextAttemptAt: this.claimUntil(at), updatedAt: at },
        { id: delivery.id, attemptCount: delivery.attemptCount, status: DeliveryStatus.PENDING },
        { sql: `${deliveries.column('nextAttemptAt')} <= ?`, parameters: [deliveries.value('nextAttemptAt', at)] },
      );
      if (!claimed) continue; // another replica's
      started++;
      const running: Promise<void> = this.attempt(delivery, attempt)
        .catch((error: unknown) => this.logger.warn({ err: error, deliveryId: delivery.id }, 'partner attempt failed'))
        .finally(() => {
          this.inFlight.delete(running);
          void this.wake();
        });
      this.inFlight.add(running);
    }
    if (!started) await this.sleepUntilNextDue();
    return started;
  }

  private async sleepUntilNextDue(): Promise<void> {
    if (!this.running) return;
    const { deliveries } = this;
    const [next] = await deliveries.selectColumns(
      this.dataSource.manager,
      ['nextAttemptAt'],
      `WHERE ${deliveries.column('status')} = ? ORDER BY ${deliveries.column('nextAttemptAt')} ASC LIMIT 1`,
      [DeliveryStatus.PENDING],
    );
    if (!next?.nextAttemptAt) return;
    const delay = next.nextAttemptAt.getTime() - this.clock().getTime();
    if (delay >= this.options.pollMs) return;
    if (this.dueTimer && this.dueAt !== undefined && this.dueAt <= next.nextAttemptAt.getTime()) return;
    clearTimeout(this.dueTimer);
    this.dueAt = next.nextAttemptAt.getTime();
    this.dueTimer = detached(() =>
      setTimeout(
        () => {
          this.dueTimer = undefined;
          this.dueAt = undefined;
          void this.wake();
        },
        Math.max(0, delay),
      ),
    );
    this.dueTimer.unref();
  }

  /** Sends claimed attempt number `attempt` of `delivery` and records it. */
  private async attempt(delivery: PartnerDeliveryRow, attempt: number, replay = false): Promise<void> {
    const webhook = await this.dataSource.manager.findOneBy(PartnerWebhookRow, { id: delivery.webhookId });
    const at = this.clock();
    if (!webhook) {
      // Deleted since: nothing to send to.
      await this.deliveries.update(
        this.dataSource.manager,
        { status: DeliveryStatus.FAILED, nextAttemptAt: null, updatedAt: at },
        { id: delivery.id, attemptCount: attempt },
      );
      return;
    }
    if (webhook.status === WebhookStatus.DISABLED && !replay) {
      // Disabled between the read and the claim: held with the others, the claimed number given back.
      await this.deliveries.update(
        this.dataSource.manager,
        { status: DeliveryStatus.HELD, attemptCount: attempt - 1, nextAttemptAt: null, updatedAt: at },
        { id: delivery.id, attemptCount: attempt },
      );
      return;
    }
    const result = await this.send(webhook, delivery, at);
    const outcome = outcomeOf(result, attempt, at, this.options.random);
    await this.record(webhook, delivery, attempt, at, result, outcome);
  }

  private async send(webhook: PartnerWebhookRow, delivery: PartnerDeliveryRow, at: Date): Promise<PostResult> {
    const started = performance.now();
    let url: URL;
    let addresses: string[];
    try {
      // Checked at every attempt: a name re-pointed at an internal address since registration is refused now.
      url = parseEndpointUrl(webhook.url, this.options.policy);
      addresses = await resolveEndpoint(url, this.options.policy);
    } catch (error) {
      return { kind: 'failed', error: (error as Error).message.slice(0, 500), latencyMs: elapsed(started) };
    }
    const secrets = this.secrets.signingSecrets(webhook, at);
    return postOnce({
      url,
      address: addresses[0] ?? '',
      headers: signedHeaders(secrets, delivery.id, at, delivery.payload),
      body: delivery.payload,
      timeoutMs: this.options.timeoutMs,
    });
  }

  private async record(
    webhook: PartnerWebhookRow,
    delivery: PartnerDeliveryRow,
    attempt: number,
    at: Date,
    result: PostResult,
    outcome: Outcome,
  ): Promise<void> {
    const endedAt = new Date(at.getTime() + result.latencyMs);
    const row = Object.assign(new PartnerDeliveryAttemptRow(), {
      id: newId(at),
      orgId: delivery.orgId,
      deliveryId: delivery.id,
      attempt,
      attemptedAt: at,
      statusCode: result.kind === 'answered' ? result.statusCode : 0,
      latencyMs: result.latencyMs,
      responseExcerpt: result.kind === 'answered' ? result.excerpt.slice(0, 1000) : '',
      error: result.kind === 'failed' ? result.error : null,
    });
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(PartnerDeliveryAttemptRow, row);
      const mine = { id: delivery.id, attemptCount: attempt };
      const pending = { ...mine, status: DeliveryStatus.PENDING };
      switch (outcome.kind) {
        case 'delivered':
          await this.deliveries.update(
            manager,
            { status: DeliveryStatus.DELIVERED, deliveredAt: endedAt, nextAttemptAt: null, updatedAt: endedAt },
            mine,
          );
          await this.webhooks.update(manager, { failingSince: null, updatedAt: endedAt }, { id: webhook.id });
          return;
        case 'gone':
          await this.disable(manager, webhook.id, DisabledReason.ENDPOINT_GONE, endedAt);
          return;
        case 'failed':
          await this.deliveries.update(
            manager,
            { status: DeliveryStatus.FAILED, nextAttemptAt: null, updatedAt: endedAt },
            pending,
          );
          break;
        case 'retry':
          await this.deliveries.update(manager, { nextAttemptAt: outcome.at, updatedAt: endedAt }, pending);
          break;
      }
      await this.webhooks.update(manager, { failingSince: at }, { id: webhook.id, failingSince: null });
      const since = webhook.failingSince ?? at;
      if (endedAt.getTime() - since.getTime() >= FAILING_DISABLE_AFTER_MS)
        await this.disable(manager, webhook.id, DisabledReason.FAILING, endedAt);
    });
    if (outcome.kind !== 'delivered')
      this.logger.debug({ deliveryId: delivery.id, attempt, outcome: outcome.kind }, 'partner attempt not delivered');
  }

  /** Disables an ENABLED webhook and holds its pending deliveries (sent again when it is enabled). */
  private async disable(manager: EntityManager, webhookId: string, reason: DisabledReason, at: Date): Promise<void> {
    const disabled = await this.webhooks.update(
      manager,
      { status: WebhookStatus.DISABLED, disabledReason: reason, disabledAt: at, updatedAt: at },
      { id: webhookId, status: WebhookStatus.ENABLED },
    );
    if (disabled) await holdPending(manager, webhookId, at);
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
