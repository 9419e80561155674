import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { EmbeddedBus, dlqTopic, type DeliveredRecord, type SubscribeOptions } from '../src';
import { eventually } from '../src/testing';

const record = (n: number, topic = 't') => ({
  topic,
  key: 'k',
  value: Buffer.from(String(n)),
  headers: { 'event-id': `e${n}` },
});

/** Collects the values a group handled. */
function collector(groupId: string, extra: Partial<SubscribeOptions> = {}) {
  const seen: string[] = [];
  const options: SubscribeOptions = {
    groupId,
    topics: ['t'],
    fromBeginning: true,
    handle: async (r) => void seen.push(r.value.toString()),
    ...extra,
  };
  return { seen, options };
}

describe('kit.EmbeddedBus (durable log)', () => {
  let dir: string;
  let file: string;
  const open = async () => {
    const bus = new EmbeddedBus({ file, retry: { attempts: 3, backoffMs: 1 }, pollMs: 20 });
    await bus.start();
    return bus;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bus-'));
    file = path.join(dir, 'bus.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps published records and each group’s committed offset across a restart', async () => {
    let bus = await open();
    const first = collector('g');
    const sub = await bus.subscribe(first.options);
    await bus.publish([record(1), record(2)]);
    await eventually(async () => first.seen.length === 2);
    await sub.stop();
    await bus.publish([record(3), record(4)]);
    await bus.stop();

    bus = await open();
    const again = collector('g');
    const late = collector('other');
    await bus.subscribe(again.options);
    await bus.subscribe(late.options);
    await eventually(async () => again.seen.length === 2 && late.seen.length === 2);
    expect(again.seen).to.deep.equal(['3', '4']);
    // 1 and 2 were trimmed once `g`, then the topic's only group, had committed past them.
    expect(late.seen).to.deep.equal(['3', '4']);
    await bus.stop();
  });

  it('trims a record once every group of its topic has committed past it, and keeps offsets increasing', async () => {
    const bus = await open();
    const fast = collector('fast');
    const slow = collector('slow');
    await bus.subscribe(fast.options);
    const slowSub = await bus.subscribe(slow.options);
    await slowSub.stop();
    await bus.publish([record(1), record(2), record(3)]);
    await eventually(async () => fast.seen.length === 3);
    expect((await bus.read('t')).map((r) => r.offset)).to.deep.equal(['0', '1', '2']);

    await bus.subscribe(slow.options);
    await eventually(async () => slow.seen.length === 3);
    await eventually(async () => (await bus.read('t')).length === 0, 5_000, 'the log to be trimmed');
    await bus.publish([record(4)]);
    await eventually(async () => fast.seen.length === 4 && slow.seen.length === 4);
    await eventually(async () => (await bus.read('t')).length === 0, 5_000, 'the log to be trimmed');
    const delivered: DeliveredRecord[] = [];
    await bus.subscribe({ groupId: 'new', topics: ['t'], handle: async (r) => void delivered.push(r) });
    await bus.publish([record(5)]);
    await eventually(async () => delivered.length === 1);
    expect(delivered[0]?.offset).to.equal('4');
    await bus.stop();
  });

  it('forgets a group gone for the retention, so it no longer holds records back, and expires records no group reads', async () => {
    const bus = new EmbeddedBus({ file, pollMs: 10, retentionMs: 200, expireEveryMs: 20 });
    await bus.start();
    const live = collector('live');
    await bus.subscribe(live.options);
    const gone = await bus.subscribe(collector('gone').options);
    await gone.stop();
    await bus.publish([record(1), record(2), record(0, 'nobody-reads')]);
    await eventually(async () => live.seen.length === 2);
    expect(await bus.read('t')).to.have.length(2);
    await eventually(async () => (await bus.read('t')).length === 0, 5_000, 'the gone group to be forgotten');
    await eventually(async () => (await bus.read('nobody-reads')).length === 0, 5_000, 'the unread record to expire');
    await bus.stop();
  });

  it('a poison record in a batch is dead-lettered alone; its neighbours are handled', async () => {
    const bus = await open();
    const handled: string[] = [];
    const consume = (r: DeliveredRecord) => {
      if (r.value.toString() === 'poison') throw new Error('cannot decode');
      return r.value.toString();
    };
    await bus.publish([record(1), { ...record(0), value: Buffer.from('poison') }, record(2)]);
    await bus.subscribe({
      groupId: 'batched',
      topics: ['t'],
      fromBeginning: true,
      handle: async (r) => void handled.push(consume(r)),
      handleBatch: async (records) => void handled.push(...records.map(consume)),
    });
    await eventually(async () => handled.length === 2);
    expect(handled).to.deep.equal(['1', '2']);
    expect((await bus.read(dlqTopic('t'))).map((r) => r.value.toString())).to.deep.equal(['poison']);
    await bus.stop();
  });

  it('the dlq CLI lists dead letters and redrives one into the running bus, where it is handled once', async () => {
    const bus = await open();
    const handled: string[] = [];
    let broken = true;
    await bus.subscribe({
      groupId: 'fixable',
      topics: ['t'],
      fromBeginning: true,
      handle: async (r) => {
        if (broken) throw new Error(`bug on ${r.value.toString()}`);
        handled.push(r.value.toString());
      },
    });
    await bus.publish([record(1), record(2)]);
    await eventually(async () => (await bus.read(dlqTopic('t'))).length === 2);
    broken = false;

    const cli = path.resolve(__dirname, '../src/cli/dlq.js');
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, [cli, ...args], { env: { ...process.env, EMBEDDED_BUS_FILE: file } });
    const listed = (await run('list', '--topic', 't')).stdout.trim().split('\n');
    const letters = listed.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      letters.map(({ eventId, topic, group, error, attempts }) => ({ eventId, topic, group, error, attempts })),
    ).to.deep.equal([
      { eventId: 'e1', topic: 't', group: 'fixable', error: 'bug on 1', attempts: 3 },
      { eventId: 'e2', topic: 't', group: 'fixable', error: 'bug on 2', attempts: 3 },
    ]);

    expect((await run('redrive', '--topic', 't', '--id', 'e2')).stdout).to.equal('redriven e2 to t\n');
    await eventually(async () => handled.length === 1, 5_000, 'the redriven record to be handled');
    expect(handled).to.deep.equal(['2']);
    expect((await bus.read(dlqTopic('t'))).map((r) => r.headers?.['event-id'])).to.deep.equal(['e1']);
    await bus.stop();
  });
});
