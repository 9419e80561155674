const MAX_ENTRIES = 10_000;

export interface LookupCacheOptions<V> {
  /** How long an answer is reused; 0 asks every time. */
  ttlMs: number;
  /** Which answers are kept (positive ones only: a miss is asked again on the next request). */
  keep: (value: V) => boolean;
  /** What an answer is about (e.g. the contact it resolved to), so `evictTag` drops every key that led to it. */
  tagOf?: (value: V) => string | undefined;
  clock?: () => number;
}

interface Entry<V> {
  value: V;
  until: number;
  tag: string | undefined;
}

/**
 * A short-lived cache of another service's answers (webhook-ingress: docs/decisions/0015; widget-api: 0085): an answer is reused for `ttlMs` only when
 * `keep` accepts it, concurrent misses of one key share one call, the oldest entry goes when full, and a failed call
 * is not cached. The owner evicts on the source's change events, by key or by tag; a call in flight when its key
 * (or any tag) is evicted answers its callers but is not kept, since it may have read the source before the change.
 * Hand-written: the eviction-aware in-flight sharing is the point, and it is a few lines over two Maps.
 */
export class LookupCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly keysByTag = new Map<string, Set<string>>();
  private readonly pending = new Map<string, Promise<V>>();
  /** Bumped by every tag eviction: a load that started before it is not kept. */
  private epoch = 0;
  private readonly clock: () => number;

  constructor(private readonly options: LookupCacheOptions<V>) {
    this.clock = options.clock ?? Date.now;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.options.ttlMs <= 0) return load();
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.until > this.clock()) return hit.value;
      this.drop(key);
    }
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const epoch = this.epoch;
    const loading: Promise<V> = load().then(
      (value) => {
        const current = this.pending.get(key) === loading;
        if (current) this.pending.delete(key);
        if (current && epoch === this.epoch && this.options.keep(value)) this.remember(key, value);
        return value;
      },
      (error: unknown) => {
        if (this.pending.get(key) === loading) this.pending.delete(key);
        throw error;
      },
    );
    this.pending.set(key, loading);
    return loading;
  }

  /** Forgets a key (the source changed): the next get asks again, and a call already in flight is not kept. */
  evict(key: string): void {
    this.drop(key);
    this.pending.delete(key);
  }

  /** Forgets every answer tagged `tag`; calls in flight (for any key: their tag is not known yet) are not kept. */
  evictTag(tag: string): void {
    this.epoch += 1;
    for (const key of this.keysByTag.get(tag) ?? []) this.entries.delete(key);
    this.keysByTag.delete(tag);
  }

  /**
   * Forgets every answer whose key or value `matches` (e.g. all of one org: deprovisioned); calls in flight are not
   * kept, as for `evictTag`.
   */
  evictWhere(matches: (key: string, value: V) => boolean): void {
    this.epoch += 1;
    for (const [key, entry] of [...this.entries]) if (matches(key, entry.value)) this.drop(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private remember(key: string, value: V): void {
    this.drop(key);
    const tag = this.options.tagOf?.(value);
    this.entries.set(key, { value, until: this.clock() + this.options.ttlMs, tag });
    if (tag !== undefined) {
      const keys = this.keysByTag.get(tag) ?? new Set<string>();
      keys.add(key);
      this.keysByTag.set(tag, keys);
    }
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.drop(oldest);
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    if (entry.tag === undefined) return;
    const keys = this.keysByTag.get(entry.tag);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByTag.delete(entry.tag);
  }
}
