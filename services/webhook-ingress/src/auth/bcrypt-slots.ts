/** Default length of the line of bcrypt comparisons waiting for a slot (`INGRESS_BCRYPT_QUEUE`). */
export const DEFAULT_BCRYPT_QUEUE = 64;

/**
 * Every bcrypt slot is taken and the line is full. The secret was not compared, so it may well be right: the request
 * is answered as a retryable failure (500 + Retry-After), never as a mismatch (401), which spec 7.2 reserves for a
 * secret that was compared and is wrong.
 */
export class VerificationBusy extends Error {
  constructor() {
    super('shared secret verification is busy');
    this.name = 'VerificationBusy';
  }
}

/**
 * Rations bcrypt (~50 ms of CPU per comparison, docs/decisions/0011): at most `concurrency` comparisons run at once,
 * at most `maxWaiting` more wait in line (first come, first served), and beyond that `run` fails at once with
 * VerificationBusy. The CPU a flood can burn is bounded by `concurrency` whatever the line's length; the line only
 * bounds how long a waiting request holds its connection (about maxWaiting / concurrency × 50 ms).
 */
export class BcryptSlots {
  private running = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(comparison: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await comparison();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.line.length >= this.maxWaiting) return Promise.reject(new VerificationBusy());
    return new Promise((resolve) => this.line.push(resolve));
  }

  private release(): void {
    const next = this.line.shift();
    // The freed slot passes straight to the first in line, so `running` never drops below what is actually running.
    if (next) next();
    else this.running -= 1;
  }
}
