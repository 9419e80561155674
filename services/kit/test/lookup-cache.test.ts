import { expect } from 'chai';
import { LookupCache } from '../src/lookup-cache';

describe('kit LookupCache', () => {
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
    const cache = new LookupCache<string | undefined>({
      ttlMs: 5_000,
      keep: (v) => v !== undefined,
      clock: () => clock,
    });
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
    const cache = new LookupCache<string[]>({ ttlMs: 5_000, keep: (v) => v.length > 0, clock: () => clock });
    const load = counting<string[]>([]);
    await cache.get('k', load);
    await cache.get('k', load);
    expect(load.calls).to.equal(2);
  });

  it('shares one call between concurrent misses of a key and does not cache a failure', async () => {
    const cache = new LookupCache<string>({ ttlMs: 5_000, keep: () => true, clock: () => clock });
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

  it('asks again after an eviction, and does not keep an answer that was in flight when the key was evicted', async () => {
    const cache = new LookupCache<string[]>({ ttlMs: 5_000, keep: (v) => v.length > 0, clock: () => clock });
    let answer = ['flow-a'];
    let release: () => void = () => undefined;
    let calls = 0;
    const load = async () => {
      calls += 1;
      const seen = answer;
      await new Promise<void>((resolve) => (release = resolve));
      return seen;
    };
    const cached = cache.get('k', load);
    release();
    expect(await cached).to.deep.equal(['flow-a']);
    cache.evict('k');
    answer = ['flow-b'];
    const stale = cache.get('k', load);
    // The source changes while that load is in flight (read before the change): evicting again drops it.
    answer = ['flow-c'];
    cache.evict('k');
    release();
    expect(await stale).to.deep.equal(['flow-b']);
    const fresh = cache.get('k', load);
    release();
    expect(await fresh).to.deep.equal(['flow-c']);
    expect(await cache.get('k', load)).to.deep.equal(['flow-c']);
    expect(calls).to.equal(3);
  });

  it('drops every key whose answer carries an evicted tag, and keeps no load that was in flight meanwhile', async () => {
    const cache = new LookupCache<{ contactId: string; chatId: string } | undefined>({
      ttlMs: 5_000,
      keep: (v) => v !== undefined,
      tagOf: (v) => v?.contactId,
      clock: () => clock,
    });
    let chatId = 'chat-1';
    let calls = 0;
    const load = (contactId: string) => async () => {
      calls += 1;
      return { contactId, chatId };
    };
    await cache.get('email:a', load('c1'));
    await cache.get('phone:a', load('c1'));
    await cache.get('email:b', load('c2'));
    expect(cache.size).to.equal(3);
    let release: () => void = () => undefined;
    const inFlight = cache.get('email:c', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return { contactId: 'c3', chatId: 'read-before-the-change' };
    });
    chatId = 'chat-2';
    cache.evictTag('c1');
    release();
    await inFlight;
    expect(cache.size).to.equal(1);
    expect(await cache.get('email:a', load('c1'))).to.deep.equal({ contactId: 'c1', chatId: 'chat-2' });
    expect(await cache.get('email:b', load('c2'))).to.deep.equal({ contactId: 'c2', chatId: 'chat-1' });
    expect(calls).to.equal(4);
    await cache.get('email:c', load('c3'));
    expect(calls).to.equal(5);
  });

  it('drops every answer evictWhere matches (an org deprovisioned), and keeps no load in flight meanwhile', async () => {
    const cache = new LookupCache<{ orgId: string }>({ ttlMs: 5_000, keep: () => true, clock: () => clock });
    await cache.get('o1:a', async () => ({ orgId: 'o1' }));
    await cache.get('o1:b', async () => ({ orgId: 'o1' }));
    await cache.get('o2:a', async () => ({ orgId: 'o2' }));
    let release: () => void = () => undefined;
    const inFlight = cache.get('o1:c', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return { orgId: 'o1' };
    });
    cache.evictWhere((key, value) => value.orgId === 'o1' && key.startsWith('o1:'));
    release();
    await inFlight;
    expect(cache.size).to.equal(1);
    const again = counting({ orgId: 'o1' });
    await cache.get('o1:a', again);
    expect(again.calls).to.equal(1);
  });

  it('asks every time with a TTL of 0', async () => {
    const cache = new LookupCache<string>({ ttlMs: 0, keep: () => true, clock: () => clock });
    const load = counting('contact');
    await cache.get('k', load);
    await cache.get('k', load);
    expect(load.calls).to.equal(2);
  });
});
