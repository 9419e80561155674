import type { Logger } from 'pino';
import { detached } from './tracing/request-context';

export interface PassLoopOptions {
  /** A pass at least this often while running (ms). */
  intervalMs: number;
  /** The time `wakeAt` measures from (tests move it). */
  clock: () => Date;
  logger: Logger;
  /** Names the work in the warning a failed pass logs, e.g. `news scheduler`. */
  what: string;
}

/**
 * Runs a background job's passes one at a time (a scheduler, a sender): one at start, every `intervalMs`, when woken
 * (`wake`, coalesced: a wake-up during a pass asks for one more after it), and at a due time sooner than the interval
 * (`wakeAt`). A failed pass is logged and the next one runs as usual. Timers are detached from the request that woke
 * the loop (a pass serves many requests) and unreferenced (they keep no process alive).
 */
export class PassLoop {
  private interval: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private dueAt: number | undefined;
  private pass: Promise<void> = Promise.resolve();
  private again = false;
  private started = false;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly options: PassLoopOptions,
  ) {}

  get running(): boolean {
    return this.started;
  }

  start(): void {
    this.started = true;
    this.interval = detached(() => setInterval(() => void this.wake(), this.options.intervalMs));
    this.interval.unref();
    void this.wake();
  }

  /** No more passes; resolves once the pass under way (if any) ended. */
  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.interval);
    clearTimeout(this.dueTimer);
    await this.pass;
  }

  /** A pass soon; resolves when it has run. */
  wake(): Promise<void> {
    if (!this.started || this.again) return this.pass;
    this.again = true;
    detached(() => {
      this.pass = this.pass.then(async () => {
        this.again = false;
        try {
          await this.run();
        } catch (error) {
          this.options.logger.warn({ err: error }, `${this.options.what} pass failed; will retry`);
        }
      });
    });
    return this.pass;
  }

  /** A pass at `at`, when that is before the next regular one. */
  wakeAt(at: Date): void {
    if (!this.started) return;
    const delay = at.getTime() - this.options.clock().getTime();
    if (delay >= this.options.intervalMs) return;
    if (this.dueTimer && this.dueAt !== undefined && this.dueAt <= at.getTime()) return;
    clearTimeout(this.dueTimer);
    this.dueAt = at.getTime();
    this.dueTimer = detached(() =>
      setTimeout(
        () => {
          this.dueTimer = undefined;
          this.dueAt = undefined;
          void this.wake();
        },
        Math.max(0, delay),
      ),
    );
    this.dueTimer.unref();
  }
}
