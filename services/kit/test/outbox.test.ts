import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { Envelope } from '@svc/proto/events/v1';
import { OutboxEvent, enqueueEvents, type NewEvent } from '../src';
import { memoryDataSource } from './memory-data-source';

const mediaEvent = (mediaId: string, sizeBytes: number): NewEvent => ({
  topic: 'svc.inbox.messages.v1',
  key: mediaId,
  type: 'media.created',
  orgId: 'org',
  payload: { media: { mediaId, type: 'IMAGE', contentType: 'image/png', sizeBytes, sha256: 'ab'.repeat(32) } },
});

describe('kit.enqueueEvents', () => {
  let dataSource: DataSource;

  before(async () => {
    dataSource = await memoryDataSource([OutboxEvent]);
  });

  after(() => dataSource.destroy());

  const stored = async (id: string): Promise<Envelope> => {
    const row = await dataSource.getRepository(OutboxEvent).findOneByOrFail({ id });
    return Envelope.decode(Buffer.from(row.payload, 'base64'));
  };

  it('stores each event as its own envelope, even when several are encoded in a row', async () => {
    const envelopes = await enqueueEvents(dataSource.manager, [mediaEvent('m1', 10), mediaEvent('m2', 70_000)]);
    const [first, second] = envelopes;
    expect((await stored(first?.id ?? '')).media).to.deep.include({ mediaId: 'm1', sizeBytes: 10 });
    expect((await stored(second?.id ?? '')).media).to.deep.include({ mediaId: 'm2', sizeBytes: 70_000 });
  });

  it('refuses an event that cannot be encoded and leaves nothing of it in the next one', async () => {
    let refused: unknown;
    await enqueueEvents(dataSource.manager, [mediaEvent('bad', 2 ** 40)]).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(Error);
    const [envelope] = await enqueueEvents(dataSource.manager, [mediaEvent('after', 5)]);
    const decoded = await stored(envelope?.id ?? '');
    expect(decoded.media).to.deep.equal({
      mediaId: 'after',
      type: 'IMAGE',
      contentType: 'image/png',
      sizeBytes: 5,
      sha256: 'ab'.repeat(32),
    });
    expect(decoded.type).to.equal('media.created');
  });
});
