import { expect } from 'chai';
import { LookupCache } from '../src/domain/lookup-cache';

describe('WebhookIngress.LookupCache', () => {
  let clock = 0;
  const counting = <V>(value: V) => {
    const load = async () => {
      load.calls += 1;
      return value;
    };
    load.calls = 0;
    return load;
  };

  beforeEach(() => {
    clock = 1_000;
  });

  it('reuses a positive answer until its TTL passes, then asks again', async () => {
    const cache = new LookupCache<string | undefined>(
      5_000,
      (v) => v !== undefined,
      () => clock,
    );
    const load = counting<string | undefined>('contact');
    expect(await cache.get('k', load)).to.equal('contact');
    clock += 4_999;
    expect(await cache.get('k', load)).to.equal('contact');
    expect(load.calls).to.equal(1);
    clock += 1;
    await cache.get('k', load);
    expect(load.calls).to.equal(2);
  });

  it('never keeps a negative answer: the next request asks again', async () => {
    const cache = new LookupCache<string[]>(
      5_000,
      (v) => v.length > 0,
      () => clock,
    );
    const load = counting<string[]>([]);
    await cache.get('k', load);
    await cache.get('k', load);
    expect(load.calls).to.equal(2);
  });

  it('shares one call between concurrent misses of a key and does not cache a failure', async () => {
    const cache = new LookupCache<string>(
      5_000,
      () => true,
      () => clock,
    );
    let calls = 0;
    let fail = true;
    const load = async () => {
      calls += 1;
      await new Promise((resolve) => setImmediate(resolve));
      if (fail) throw new Error('contacts is down');
      return 'contact';
    };
    const results = await Promise.allSettled([cache.get('k', load), cache.get('k', load), cache.get('k', load)]);
    expect(results.every((r) => r.status === 'rejected')).to.equal(true);
    expect(calls).to.equal(1);
    fail = false;
    expect(await cache.get('k', load)).to.equal('contact');
    expect(calls).to.equal(2);
  });

  it('asks every time with a TTL of 0', async () => {
    const cache = new LookupCache<string>(
      0,
      () => true,
      () => clock,
    );
    const load = counting('contact');
    await cache.get('k', load);
    await cache.get('k', load);
    expect(load.calls).to.equal(2);
  });
});
