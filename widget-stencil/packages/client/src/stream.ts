import { backoffDelay } from './backoff.js';
import { errorOf, type Fetch } from './http.js';
import { SseParser, type SseEvent } from './sse.js';
import type { WidgetApiError } from './errors.js';
import type { ConnectionState } from './state.js';

/** What the stream needs from its owner (the client): the current token and position, and where results go. */
export interface StreamHooks {
  /** The session token to present; `null` ends the stream. */
  token(): string | null;
  /** The sequence number of the last event processed (`Last-Event-ID`). */
  lastSeq(): number;
  onEvent(event: SseEvent): void;
  onState(state: ConnectionState): void;
  /** `401`: renew the session; `true` when a new token is there to try once more. */
  renew(): Promise<boolean>;
  /** Stopped for good (`404`: the integration or the chat is gone; or a second `401`). */
  onEnded(error: WidgetApiError): void;
}

export interface StreamOptions {
  url: string;
  fetch: Fetch;
  heartbeatMs: number;
  reconnectMaxMs: number;
  random: () => number;
  /** `navigator.onLine`; `true` when unknown. */
  online(): boolean;
}

/** The first reconnect delay until the server's `retry:` says otherwise (docs/widget-api.md sends 3000). */
const DEFAULT_RETRY_MS = 3_000;

/**
 * `GET /realtime/:chatId` read with fetch streaming (EventSource cannot send the `Authorization` header, decision
 * 0088). It reconnects on its own with `Last-Event-ID` = the last processed seq, after the server's `retry:` delay
 * with exponential backoff and jitter; a stream silent for more than two heartbeats (a sleeping laptop, a dead
 * proxy) is dropped and reopened; a `404` stops it for good; a `401` renews the session once.
 */
export class ChatStream {
  private controller: AbortController | undefined;
  private generation = 0;
  private attempt = 0;
  private retryMs = DEFAULT_RETRY_MS;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private renewedOnce = false;
  private live = false;
  private lastByteAt = 0;

  constructor(
    private readonly options: StreamOptions,
    private readonly hooks: StreamHooks,
  ) {}

  start(): void {
    void this.connect('connecting');
  }

  /** Drop the current connection (if any) and connect again now; nothing once stopped. */
  reconnectNow(): void {
    if (this.stopped) return;
    this.attempt = 0;
    void this.connect('reconnecting');
  }

  /** The browser went offline: say so and wait (a timer still retries, in case `online` never fires). */
  wentOffline(): void {
    if (this.stopped) return;
    this.abort();
    this.scheduleReconnect();
  }

  /** The page became visible again: resync unless the stream is live and has spoken within a heartbeat. */
  becameVisible(now: number): void {
    if (this.stopped) return;
    if (!this.live || now - this.lastByteAt > this.options.heartbeatMs) this.reconnectNow();
  }

  stop(): void {
    this.stopped = true;
    this.abort();
  }

  private abort(): void {
    this.generation++;
    this.live = false;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.watchdog);
    this.controller?.abort();
    this.controller = undefined;
  }

  private async connect(state: 'connecting' | 'reconnecting'): Promise<void> {
    this.abort();
    const generation = this.generation;
    const current = () => generation === this.generation && !this.stopped;
    const token = this.hooks.token();
    if (!token) return;
    this.hooks.onState(state);
    const controller = new AbortController();
    this.controller = controller;
    let response: Response;
    try {
      response = await this.options.fetch(this.options.url, {
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'text/event-stream',
          'last-event-id': String(this.hooks.lastSeq()),
        },
        signal: controller.signal,
      });
    } catch {
      if (current()) this.scheduleReconnect();
      return;
    }
    if (!current()) {
      controller.abort();
      return;
    }
    if (response.status === 401 || response.status === 404) {
      const error = errorOf(response.status, response.headers, await response.text().catch(() => ''));
      if (!current()) return;
      if (response.status === 401 && !this.renewedOnce) {
        this.renewedOnce = true;
        const renewed = await this.hooks.renew();
        if (!current()) return;
        if (renewed) return this.connect('reconnecting');
        // The renewal did not get through (network) but the session stands: try again later, renewing again.
        if (this.hooks.token()) {
          this.renewedOnce = false;
          return this.scheduleReconnect();
        }
      }
      this.stopped = true;
      this.hooks.onEnded(error);
      return;
    }
    if (!response.ok || !response.body) {
      const retryAfter = Number(response.headers.get('retry-after'));
      void response.body?.cancel().catch(() => undefined);
      this.scheduleReconnect(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
      return;
    }
    this.renewedOnce = false;
    this.live = true;
    this.hooks.onState('live');
    await this.read(response.body, current);
    if (current()) {
      this.live = false;
      this.scheduleReconnect();
    }
  }

  private async read(body: ReadableStream<Uint8Array>, current: () => boolean): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const heard = () => {
      // An event or a heartbeat (not just the `retry:` line every stream starts with) proves the stream is healthy.
      this.attempt = 0;
    };
    const parser = new SseParser({
      onEvent: (event) => {
        heard();
        if (current()) this.hooks.onEvent(event);
      },
      onComment: heard,
      onRetry: (milliseconds) => {
        this.retryMs = milliseconds;
      },
    });
    this.armWatchdog(current);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || !current()) break;
        this.lastByteAt = Date.now();
        this.armWatchdog(current);
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // the connection broke or was aborted: the caller decides whether to reconnect
    } finally {
      parser.end();
      clearTimeout(this.watchdog);
      void reader.cancel().catch(() => undefined);
    }
  }

  private armWatchdog(current: () => boolean): void {
    clearTimeout(this.watchdog);
    // Two heartbeats and a half without a byte: the stream is dead even if the socket does not know yet.
    this.watchdog = setTimeout(() => {
      if (current()) this.reconnectNow();
    }, this.options.heartbeatMs * 2.5);
  }

  private scheduleReconnect(delayMs?: number): void {
    if (this.stopped) return;
    this.abort();
    this.hooks.onState(this.options.online() ? 'reconnecting' : 'offline');
    const delay =
      delayMs ??
      backoffDelay(this.attempt++, {
        baseMs: this.retryMs,
        maxMs: this.options.reconnectMaxMs,
        random: this.options.random,
      });
    const generation = this.generation;
    this.reconnectTimer = setTimeout(() => {
      if (generation === this.generation) void this.connect('reconnecting');
    }, delay);
  }
}
