import { expect } from 'chai';
import { EmbeddedBus, type DeliveredRecord } from '../src';

function waitFor(condition: () => boolean, deadlineMs = 5000): Promise<void> {
  const until = Date.now() + deadlineMs;
  return new Promise((resolve, reject) => {
    const poll = () =>
      condition()
        ? resolve()
        : Date.now() > until
          ? reject(new Error('condition not met in time'))
          : setTimeout(poll, 5);
    poll();
  });
}

const FAST = { backoffMs: 1 };
const record = (n: number) => ({ topic: 't', key: 'k', value: Buffer.from(String(n)) });

describe('kit.EmbeddedBus', () => {
  it('delivers every record once to each group, in order', async () => {
    const bus = new EmbeddedBus({ retry: FAST });
    await bus.start();
    const a: string[] = [];
    const b: string[] = [];
    await bus.subscribe({ groupId: 'a', topics: ['t'], handle: async (r) => void a.push(r.value.toString()) });
    await bus.subscribe({ groupId: 'b', topics: ['t'], handle: async (r) => void b.push(r.value.toString()) });
    await bus.publish([record(1), record(2), record(3)]);
    await waitFor(() => a.length === 3 && b.length === 3);
    expect(a).to.deep.equal(['1', '2', '3']);
    expect(b).to.deep.equal(['1', '2', '3']);
    await bus.stop();
  });

  it('redelivers a record whose handler failed, then moves on', async () => {
    const bus = new EmbeddedBus({ retry: FAST });
    await bus.start();
    const seen: DeliveredRecord[] = [];
    let failOnce = true;
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      handle: async (r) => {
        seen.push(r);
        if (failOnce) {
          failOnce = false;
          throw new Error('transient');
        }
      },
    });
    await bus.publish([record(1), record(2)]);
    await waitFor(() => seen.length === 3);
    expect(seen.map((r) => r.value.toString())).to.deep.equal(['1', '1', '2']);
    await bus.stop();
  });

  it('starts a new group at the end unless asked for the beginning', async () => {
    const bus = new EmbeddedBus({ retry: FAST });
    await bus.start();
    await bus.publish([record(1)]);
    const late: string[] = [];
    const early: string[] = [];
    await bus.subscribe({ groupId: 'late', topics: ['t'], handle: async (r) => void late.push(r.value.toString()) });
    await bus.subscribe({
      groupId: 'early',
      topics: ['t'],
      fromBeginning: true,
      handle: async (r) => void early.push(r.value.toString()),
    });
    await bus.publish([record(2)]);
    await waitFor(() => late.length === 1 && early.length === 2);
    expect(late).to.deep.equal(['2']);
    expect(early).to.deep.equal(['1', '2']);
    await bus.stop();
  });

  it('hands a backlog to handleBatch in order, at most maxBatch at a time, and retries a failed batch one record at a time', async () => {
    const bus = new EmbeddedBus({ retry: FAST });
    await bus.start();
    const batches: string[][] = [];
    const singles: string[] = [];
    let failOnce = true;
    const consumer = {
      groupId: 'batched',
      topics: ['t'],
      fromBeginning: true,
      maxBatch: 3,
      handle: async (r: DeliveredRecord) => void singles.push(r.value.toString()),
      handleBatch: async (records: DeliveredRecord[]) => {
        batches.push(records.map((r) => r.value.toString()));
        if (failOnce) {
          failOnce = false;
          throw new Error('transient');
        }
      },
    };
    await bus.publish([1, 2, 3, 4, 5].map(record));
    await bus.subscribe(consumer);
    await waitFor(() => batches.flat().length + singles.length === 8);
    expect(batches).to.deep.equal([
      ['1', '2', '3'],
      ['4', '5'],
    ]);
    expect(singles).to.deep.equal(['1', '2', '3']);
    await bus.stop();
  });
});
