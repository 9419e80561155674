import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { documentedErasureKinds, newId } from '@svc/kit';
import { PARTNER_CONTACT_ROWS, partnerContactErasure } from '../src/domain/erasure';
import { type PartnerDeliveryRow } from '../src/entities';
import {
  CLIENT,
  DeliveryStatus,
  type Receiver,
  TestClock,
  addWebhook,
  attemptsOf,
  deliveriesOf,
  engineOf,
  fanoutOf,
  messageCreated,
  newSecret,
  openDeliveryWorld,
  closeDeliveryWorld,
} from './delivery-fixture';

describe('partner contact erasure part', () => {
  let dataSource: DataSource;
  let receiver: Receiver;
  beforeEach(async () => ({ dataSource, receiver } = await openDeliveryWorld('partner_erasure')));
  afterEach(() => closeDeliveryWorld({ dataSource, receiver }));

  it('counts the kinds docs/erasure.md lists', () => {
    expect(PARTNER_CONTACT_ROWS.kinds).to.deep.equal(documentedErasureKinds('partner'));
  });

  it('deletes what is not sent yet, empties what was sent, and leaves other contacts alone', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret: newSecret() });
    const contactId = newId();
    const fanout = fanoutOf(dataSource, clock);
    await fanout.record([messageCreated('sent', contactId)]);
    receiver.answer({ status: 200, body: 'echo: sent' });
    await engineOf(dataSource, clock).sweepOnce();
    await fanout.record([messageCreated('pending', contactId), messageCreated('someone else')]);

    const part = partnerContactErasure(dataSource);
    const expected = [
      { kind: 'pending_deliveries', count: 1 },
      { kind: 'delivery_payloads', count: 1 },
    ];
    expect(await part.preview(CLIENT, contactId)).to.deep.equal(expected);
    expect(await part.preview(newId(), contactId)).to.deep.equal(expected.map((k) => ({ ...k, count: 0 })));
    const erased = await dataSource.transaction((manager) =>
      part.erase(manager, { erasureId: newId(), orgId: CLIENT, contactId }),
    );
    expect(erased.counts).to.deep.equal(expected);

    const left = await deliveriesOf(dataSource, webhook.id);
    expect(left.map((d) => [d.status, d.contactId === contactId, d.payload.includes('sent')])).to.have.deep.members([
      [DeliveryStatus.DELIVERED, false, false],
      [DeliveryStatus.PENDING, false, false],
    ]);
    const sent = left.find((d) => d.status === DeliveryStatus.DELIVERED) as PartnerDeliveryRow;
    expect(sent.payload).to.equal('');
    expect((await attemptsOf(dataSource, sent.id)).map((a) => a.responseExcerpt)).to.deep.equal(['']);
    expect(await part.preview(CLIENT, contactId)).to.deep.equal(expected.map((k) => ({ ...k, count: 0 })));
  });
});
