import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { EmbeddedBus, type SubscribeOptions } from '../src';
import { SqliteLog } from '../src/bus/sqlite-log';
import { eventually } from '../src/testing';

const record = (n: number) => ({ topic: 't', key: 'k', value: Buffer.from(String(n)) });
const offsets = async (bus: EmbeddedBus) => (await bus.read('t')).map((r) => r.offset);

function collector(groupId: string, handle?: (value: string) => Promise<void>) {
  const seen: string[] = [];
  const options: SubscribeOptions = {
    groupId,
    topics: ['t'],
    fromBeginning: true,
    handle: async (r) => {
      await handle?.(r.value.toString());
      seen.push(r.value.toString());
    },
  };
  return { seen, options };
}

/** The embedded bus deletes what every group committed on a timer, not at each commit (docs/decisions/0095). */
describe('kit.EmbeddedBus trimming', () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bus-trim-'));
    file = path.join(dir, 'bus.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a commit deletes nothing by itself; the next trim does, and stopping trims what is left', async () => {
    let bus = new EmbeddedBus({ file, trimEveryMs: 3_600_000 });
    await bus.start();
    const a = collector('a');
    const b = collector('b');
    await bus.subscribe(a.options);
    await bus.subscribe(b.options);
    await bus.publish([record(1), record(2), record(3)]);
    await eventually(async () => a.seen.length === 3 && b.seen.length === 3);
    // Both groups committed all three: with trimming at each commit they would be gone.
    expect(await offsets(bus)).to.deep.equal(['0', '1', '2']);
    await bus.stop();

    bus = new EmbeddedBus({ file, trimEveryMs: 3_600_000 });
    await bus.start();
    expect(await offsets(bus)).to.deep.equal([]);
    await bus.stop();
  });

  it('never deletes a record a group has not committed, and deletes it once every group has', async () => {
    const bus = new EmbeddedBus({ file, trimEveryMs: 5, pollMs: 10 });
    await bus.start();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const fast = collector('fast');
    // Handles 1, then waits on 2: its committed offset stays at 1 while `fast` commits all five.
    const slow = collector('slow', async (value) => (value === '2' ? released : undefined));
    await bus.subscribe(fast.options);
    await bus.subscribe(slow.options);
    await bus.publish([1, 2, 3, 4, 5].map(record));
    await eventually(async () => fast.seen.length === 5 && slow.seen.length === 1);

    // Record 1 (offset 0) goes, as every group has passed it; 2 to 5 stay while `slow` has not committed them.
    await eventually(async () => (await offsets(bus)).length < 5, 5_000, 'the first trim');
    expect(await offsets(bus)).to.deep.equal(['1', '2', '3', '4']);

    release();
    await eventually(async () => slow.seen.length === 5);
    expect(slow.seen).to.deep.equal(['1', '2', '3', '4', '5']);
    await eventually(async () => (await offsets(bus)).length === 0, 5_000, 'the log to be trimmed');
    await bus.stop();
  });

  it('what a killed process committed but did not trim is trimmed after the restart, and not delivered again', async () => {
    // The state a kill -9 leaves: records every group committed, still in the log.
    const log = new SqliteLog(file);
    log.append([1, 2, 3].map(record));
    log.join('g', 't', true);
    log.commit('g', 't', 2);
    log.close();

    const bus = new EmbeddedBus({ file, trimEveryMs: 5 });
    await bus.start();
    await eventually(async () => (await offsets(bus)).length === 1, 5_000, 'the leftovers to be trimmed');
    expect(await offsets(bus)).to.deep.equal(['2']);
    const g = collector('g');
    await bus.subscribe(g.options);
    await eventually(async () => g.seen.length === 1);
    expect(g.seen).to.deep.equal(['3']);
    await bus.stop();
  });
});

describe('kit SqliteLog commits', () => {
  it('a commit of a group the log forgot meanwhile records it again where it committed', () => {
    const log = new SqliteLog(':memory:');
    log.append([1, 2, 3].map(record));
    expect(log.join('g', 't', true)).to.equal(0);
    log.expire(-1_000, []);
    expect(log.committed('g', 't')).to.equal(undefined);
    log.commit('g', 't', 2);
    expect(log.committed('g', 't')).to.equal(2);
    log.commit('g', 't', 1);
    expect(log.committed('g', 't'), 'never backwards').to.equal(2);
    log.close();
  });
});
