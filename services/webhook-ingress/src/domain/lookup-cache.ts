const MAX_ENTRIES = 10_000;

/**
 * A short-lived cache of another service's answers (docs/decisions/0015): an answer is reused for `ttlMs` only when
 * `keep` accepts it (positive answers only: a contact that did not resolve, or a connection without a published flow,
 * is asked again on the next request), concurrent misses of one key share one call, and the oldest entry goes when
 * full. A failed call is not cached. `ttlMs` 0 asks every time.
 */
export class LookupCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly pending = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly keep: (value: V) => boolean,
    private readonly clock: () => number = Date.now,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.ttlMs <= 0) return load();
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.until > this.clock()) return hit.value;
      this.entries.delete(key);
    }
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const loading = load().then(
      (value) => {
        this.pending.delete(key);
        if (this.keep(value)) this.remember(key, value);
        return value;
      },
      (error: unknown) => {
        this.pending.delete(key);
        throw error;
      },
    );
    this.pending.set(key, loading);
    return loading;
  }

  private remember(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, until: this.clock() + this.ttlMs });
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
