import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { createLogger, dropTestDatabase, newId, now, OutboxEvent, testEnv } from '@svc/kit';
import { InboundOutcome } from '@svc/proto/webhooks/v1';
import { WebhookIngressApp, ingressConfig } from '../src';
import { GroupCommit, type RequestCommit } from '../src/domain/group-commit';
import { webhookReceivedEvent } from '../src/domain/events';
import { IDEMPOTENCY_WINDOW_MS } from '../src/domain/retention';
import { IdempotencyKeyRow, RequestLogRow } from '../src/entities';

function request(key?: string, withEvent = false): RequestCommit {
  const at = now();
  const id = newId(at);
  const connectionId = newId();
  return {
    log: {
      id,
      orgId: newId(),
      connectionId,
      requestId: null,
      idempotencyKey: key ?? null,
      outcome: InboundOutcome.ACCEPTED,
      httpStatus: 202,
      headers: '{}',
      contactId: null,
      flowIds: '[]',
      replay: false,
      detail: null,
      createdAt: at,
    },
    idempotency: key
      ? {
          id: key,
          connectionId,
          outcome: InboundOutcome.ACCEPTED,
          httpStatus: 202,
          responseBody: JSON.stringify({ requestId: id }),
          createdAt: at,
        }
      : undefined,
    event: withEvent
      ? webhookReceivedEvent({
          orgId: newId(),
          requestId: id,
          connectionId,
          contactId: newId(),
          chatId: newId(),
          payloadJson: '{}',
          flowIds: [newId()],
        })
      : undefined,
  };
}

describe('WebhookIngress.GroupCommit', () => {
  let app: WebhookIngressApp;
  let transactions = 0;
  let nudges = 0;
  let commits: GroupCommit;

  before(async () => {
    app = new WebhookIngressApp(ingressConfig(testEnv('webhook_ingress')));
    await app.start();
    // Counts the group commit's transactions only (the outbox relay shares the data source).
    const transaction = app.dataSource.transaction.bind(app.dataSource);
    const counted = Object.create(app.dataSource, {
      transaction: {
        value: (...args: Parameters<typeof transaction>) => {
          transactions += 1;
          return transaction(...args);
        },
      },
    }) as DataSource;
    commits = new GroupCommit(counted, 50, () => (nudges += 1), createLogger('test', 'silent'));
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });
  beforeEach(() => {
    transactions = 0;
    nudges = 0;
  });

  const stored = async (requests: RequestCommit[]) =>
    app.dataSource.getRepository(RequestLogRow).countBy(requests.map((r) => ({ id: r.log.id })));

  it('commits concurrent requests in one shared transaction and resolves each once it is durable', async () => {
    const requests = Array.from({ length: 30 }, (_, i) => request(undefined, i % 2 === 0));
    const results = await Promise.all(requests.map((r) => commits.commit(r)));
    expect(results.every((r) => r === 'committed')).to.equal(true);
    expect(transactions).to.equal(1);
    expect(await stored(requests)).to.equal(30);
    const events = await app.dataSource
      .getRepository(OutboxEvent)
      .countBy(requests.flatMap((r) => (r.event ? [{ partitionKey: r.log.connectionId }] : [])));
    expect(events).to.equal(15);
    expect(nudges).to.equal(1);
  });

  it('splits a burst larger than the batch size into several transactions', async () => {
    const requests = Array.from({ length: 120 }, () => request());
    await Promise.all(requests.map((r) => commits.commit(r)));
    expect(transactions).to.equal(3);
    expect(await stored(requests)).to.equal(120);
  });

  it('answers duplicate for a key already stored or claimed earlier in the batch, writing nothing of it', async () => {
    const key = 'k'.repeat(64);
    await commits.commit(request(key));
    const twice = 'd'.repeat(64);
    const batch = [request(key), request(twice), request(twice), request()];
    const results = await Promise.all(batch.map((r) => commits.commit(r)));
    expect(results).to.deep.equal(['duplicate', 'committed', 'duplicate', 'committed']);
    expect(await stored(batch)).to.equal(2);
    expect(await app.dataSource.getRepository(IdempotencyKeyRow).countBy({ id: twice })).to.equal(1);
  });

  it('lets a key stored longer ago than the idempotency window give way to a new request', async () => {
    const key = 'e'.repeat(64);
    const stale = request(key).idempotency!;
    await app.dataSource.manager.insert(IdempotencyKeyRow, {
      ...stale,
      createdAt: new Date(Date.now() - IDEMPOTENCY_WINDOW_MS - 60_000),
    });
    const fresh = request(key);
    expect(await commits.commit(fresh)).to.equal('committed');
    const stored = await app.dataSource.manager.findOneByOrFail(IdempotencyKeyRow, { id: key });
    expect(stored.responseBody).to.equal(fresh.idempotency?.responseBody);
    // The new row holds the key for a new window.
    expect(await commits.commit(request(key))).to.equal('duplicate');
  });

  it('retries one by one when the shared transaction fails, so one bad request fails alone', async () => {
    const good = [request(), request()];
    const bad = request();
    bad.log = { ...bad.log, outcome: 'NOT_AN_OUTCOME' as InboundOutcome };
    const results = await Promise.allSettled([...good, bad].map((r) => commits.commit(r)));
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected']);
    expect(await stored(good)).to.equal(2);
    expect(await stored([bad])).to.equal(0);
  });

  it('runs the transactions of a SQLite data source one at a time', async function () {
    if (app.dataSource.options.type !== 'better-sqlite3') this.skip();
    const order: string[] = [];
    const work = (name: string) =>
      app.dataSource.transaction(async (manager) => {
        order.push(`${name} begin`);
        await manager.query('SELECT 1');
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`${name} end`);
      });
    await Promise.all([work('a'), work('b')]);
    expect(order).to.deep.equal(['a begin', 'a end', 'b begin', 'b end']);
  });
});
