import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  Receiver,
  TestClock,
  addWebhook,
  deliveriesOf,
  DeliveryStatus,
  engineOf,
  fanoutOf,
  messageCreated,
  newSecret,
} from './delivery-fixture';
import { closePartnerDb, openPartnerDb, openPartnerReplica } from './partner-db';

/**
 * Two replicas' engines on one database (a SQLite file, or MariaDB under `npm run test:infra`), each with its own
 * connection, sweeping the same due deliveries at the same moment: every delivery is sent exactly once.
 */
describe('partner delivery engine: two replicas on one database', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'partner-replicas-'));
  let first: DataSource;
  let second: DataSource;
  let receiver: Receiver;

  before(async () => {
    first = await openPartnerDb('partner_replicas', path.join(dir, 'partner.sqlite'));
    second = await openPartnerReplica(first);
    receiver = await new Receiver().start();
  });
  after(async () => {
    await receiver.stop();
    await second.destroy();
    await closePartnerDb(first);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('never sends one attempt twice', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(first, clock.now(), { url: receiver.url, secret: newSecret() });
    const events = Array.from({ length: 60 }, () => messageCreated());
    await fanoutOf(first, clock).record(events);
    const engines = [engineOf(first, clock, { concurrency: 7 }), engineOf(second, clock, { concurrency: 7 })];
    for (let round = 0; round < 30; round++) {
      const started = await Promise.all(engines.map((engine) => engine.sweepOnce()));
      if (started.every((count) => count === 0)) break;
    }
    const deliveries = await deliveriesOf(first, webhook.id);
    expect(deliveries.filter((d) => d.status !== DeliveryStatus.DELIVERED)).to.deep.equal([]);
    const perId = new Map<string, number>();
    for (const received of receiver.received) {
      const id = String(received.headers['webhook-id']);
      perId.set(id, (perId.get(id) ?? 0) + 1);
    }
    expect(perId.size).to.equal(60);
    expect([...perId.values()].filter((count) => count !== 1)).to.deep.equal([]);
    expect(deliveries.map((d) => d.attemptCount)).to.deep.equal(deliveries.map(() => 1));
  });
});
