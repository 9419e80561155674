import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { type EmbeddedBus, type KafkaBus, eventually, testRunId } from '../src';
import { busesUnderTest } from './buses-under-test';

/**
 * `stopConsuming()`, which the embedded stack calls before it stops its services one by one: every subscription of the
 * bus stops at once, each after the handler running now, and nothing is delivered after it.
 */
for (const [name, create] of busesUnderTest({ attempts: 1, backoffMs: 1 })) {
  describe(`kit bus stopConsuming (${name})`, function () {
    this.timeout(60_000);
    let bus: EmbeddedBus | KafkaBus;

    beforeEach(async () => {
      bus = create();
      await bus.start();
    });
    afterEach(() => bus.stop());

    it('waits for the handlers running now, stops every group and delivers nothing after it', async () => {
      const unique = `${testRunId}.${randomBytes(3).toString('hex')}`;
      const topic = `kit-test.${unique}`;
      let release = () => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      const seen: Record<'held' | 'other', string[]> = { held: [], other: [] };
      let heldFinished = false;
      const subscriptions = await Promise.all(
        (['held', 'other'] as const).map((group) =>
          bus.subscribe({
            groupId: `kit-test.${unique}.${group}`,
            topics: [topic],
            fromBeginning: true,
            awaitAssignment: true,
            handle: async (record) => {
              seen[group].push(record.value.toString());
              if (group !== 'held') return;
              await gate;
              heldFinished = true;
            },
          }),
        ),
      );
      await bus.publish([{ topic, key: 'k', value: Buffer.from('1') }]);
      await eventually(async () => seen.held.length === 1 && seen.other.length === 1, 30_000, 'the first record');

      let stopped = false;
      const stopping = bus.stopConsuming().then(() => (stopped = true));
      // Long enough for a stop that did not wait for the handler to have returned.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(stopped, 'stopped while a handler was running').to.equal(false);
      release();
      await stopping;
      expect(heldFinished, 'the running handler finished first').to.equal(true);

      await bus.publish([{ topic, key: 'k', value: Buffer.from('2') }]);
      // Kafka answers a consumer's fetch within FETCH_MAX_WAIT_MS (500 ms); the embedded bus delivers at once.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(seen).to.deep.equal({ held: ['1'], other: ['1'] });
      // The subscriptions' own stop is then a no-op.
      await Promise.all(subscriptions.map((s) => s.stop()));
    });
  });
}
