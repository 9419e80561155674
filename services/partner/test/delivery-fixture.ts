import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createLogger, newId, SecretKeyring } from '@svc/kit';
import {
  PartnerWebhookState_Status as WebhookStatus,
  PartnerWebhookDeliveryState_Status as DeliveryStatus,
} from '@svc/proto/partner/v1/partner_webhooks';
import { DeliveryEngine, type DeliveryEngineOptions } from '../src/domain/delivery/engine';
import { Fanout } from '../src/domain/fanout/fanout';
import { WebhookSecrets } from '../src/domain/webhook-secrets';
import type { PartnerEvent } from '../src/domain/fanout/mapping';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow, PartnerWebhookRow } from '../src/entities';
import { closePartnerDb, openPartnerDb } from './partner-db';

export const logger = createLogger('partner-delivery-test', 'silent');

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** One request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers one request: a status (headers, body), or never (`hang`: the sender's timeout ends it). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A real HTTP endpoint: answers from a script (then 200), records every request. */
export class Receiver {
  readonly received: Received[] = [];
  private readonly script: Answer[] = [];
  /** The answer once the script is spent. */
  fallback: Answer = { status: 200, body: 'ok' };
  private server: Server | undefined;

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        const answer = this.script.shift() ?? this.fallback;
        if (answer === 'hang') return;
        response.writeHead(answer.status, answer.headers ?? {});
        response.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  answer(...answers: Answer[]): void {
    this.script.push(...answers);
  }

  get port(): number {
    return (this.server?.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** How long a rotated-out secret keeps signing in these tests. */
export const ROTATION_GRACE_MS = 60_000;

/** The secrets module the app binds to the engine, with a test key. */
export const webhookSecrets = new WebhookSecrets(
  new SecretKeyring([{ id: 'k1', key: randomBytes(32) }]),
  ROTATION_GRACE_MS,
);

/** A clock tests move by hand. */
export class TestClock {
  constructor(private at: number = Date.now()) {}
  readonly now = (): Date => new Date(this.at);
  set(at: Date): void {
    this.at = at.getTime();
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

/** One delivery test's world: a fresh partner database and a started receiver. */
export interface DeliveryWorld {
  dataSource: DataSource;
  receiver: Receiver;
}

export async function openDeliveryWorld(name: string): Promise<DeliveryWorld> {
  const dataSource = await openPartnerDb(name);
  return { dataSource, receiver: await new Receiver().start() };
}

export async function closeDeliveryWorld({ dataSource, receiver }: DeliveryWorld): Promise<void> {
  await receiver.stop();
  await closePartnerDb(dataSource);
}

export const PROVIDER = newId();
export const CLIENT = newId();

/** A webhook of PROVIDER whose current secret is `secret` (sealed as the secrets module stores it). */
export async function addWebhook(
  dataSource: DataSource,
  at: Date,
  fields: Partial<PartnerWebhookRow> & { url: string; secret: string },
): Promise<PartnerWebhookRow> {
  const { secret, ...rest } = fields;
  const id = newId();
  const row = Object.assign(new PartnerWebhookRow(), {
    id,
    orgId: PROVIDER,
    events: ['message.created'],
    status: WebhookStatus.ENABLED,
    disabledReason: null,
    disabledAt: null,
    description: null,
    secretSealed: webhookSecrets.keyring.seal(secret, { orgId: PROVIDER, id }),
    previousSecretSealed: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    createdAt: at,
    updatedAt: at,
    ...rest,
  });
  await dataSource.manager.insert(PartnerWebhookRow, row);
  return row;
}

export function messageCreated(text = 'hello', contactId: string | null = newId()): PartnerEvent {
  const messageId = newId();
  return {
    eventId: newId(),
    kind: 'message.created',
    clientOrgId: CLIENT,
    occurredAt: new Date().toISOString(),
    contactId,
    data: { clientOrgId: CLIENT, messageId, text, contactId },
  };
}

export function fanoutOf(dataSource: DataSource, clock: TestClock, onCreated: () => void = () => {}): Fanout {
  return new Fanout(dataSource, {
    providerOf: async (orgId) => (orgId === CLIENT ? PROVIDER : ''),
    onCreated,
    clock: clock.now,
  });
}

export function engineOf(
  dataSource: DataSource,
  clock: TestClock,
  options: Partial<DeliveryEngineOptions> = {},
): DeliveryEngine {
  return new DeliveryEngine(dataSource, webhookSecrets, logger, {
    policy: { allowInsecure: true },
    timeoutMs: 2_000,
    concurrency: 8,
    pollMs: 60_000,
    clock: clock.now,
    random: () => 0.5,
    ...options,
  });
}

export async function deliveriesOf(dataSource: DataSource, webhookId: string): Promise<PartnerDeliveryRow[]> {
  return dataSource.manager.find(PartnerDeliveryRow, { where: { webhookId }, order: { createdAt: 'ASC', id: 'ASC' } });
}

export async function attemptsOf(dataSource: DataSource, deliveryId: string): Promise<PartnerDeliveryAttemptRow[]> {
  return dataSource.manager.find(PartnerDeliveryAttemptRow, { where: { deliveryId }, order: { attempt: 'ASC' } });
}

export async function webhookOf(dataSource: DataSource, id: string): Promise<PartnerWebhookRow> {
  return dataSource.manager.findOneByOrFail(PartnerWebhookRow, { id });
}

export { DeliveryStatus, WebhookStatus };
