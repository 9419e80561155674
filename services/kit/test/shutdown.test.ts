import { expect } from 'chai';
import { stopTogether } from '../src';

/** A part whose stop runs until `finish` is called. */
function heldPart() {
  let finish = () => undefined as void;
  const part = { started: false, stopped: false };
  const finished = new Promise<void>((resolve) => (finish = resolve));
  return {
    part,
    finish: () => finish(),
    stop: async () => {
      part.started = true;
      await finished;
      part.stopped = true;
    },
  };
}

describe('kit.stopTogether', () => {
  it('starts every stop at once and returns when all have stopped', async () => {
    const a = heldPart();
    const b = heldPart();
    let done = false;
    const stopping = stopTogether([a, undefined, b]).then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    // One after another, b would not start before a finished.
    expect([a.part.started, b.part.started]).to.deep.equal([true, true]);
    a.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).to.equal(false);
    b.finish();
    await stopping;
    expect([a.part.stopped, b.part.stopped, done]).to.deep.equal([true, true, true]);
  });

  it('waits for the other parts when one fails, then throws its error', async () => {
    const held = heldPart();
    const failing = { stop: async () => Promise.reject(new Error('consumer would not leave')) };
    let settled = false;
    const outcome = stopTogether([failing, held]).then(
      () => undefined,
      (error: unknown) => error,
    );
    void outcome.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    // Failing fast (Promise.all) would have settled already, with the held part still stopping.
    expect([held.part.started, settled]).to.deep.equal([true, false]);
    held.finish();
    const error = await outcome;
    expect(held.part.stopped).to.equal(true);
    expect((error as Error).message).to.equal('consumer would not leave');
  });
});
