import type { VisitorIdentity } from '@svc-inbox/widget-protocol';
import type { StateListener, WidgetClientState, ChatMessage } from './state.js';
import type { TokenStorage } from './storage.js';
import type { GateConfig, UploadedMedia, VisitorProfile, WidgetConfig } from './types.js';

/** What the client listens to for resyncs; `globalThis`'s `window`, `document` and `navigator` by default. */
export interface ClientEnvironment {
  /** Fires `online` and `offline`. */
  window?: EventTargetLike;
  /** Fires `visibilitychange`; `visibilityState` `visible` means the page is shown. */
  document?: EventTargetLike & { readonly visibilityState?: string };
  navigator?: { readonly onLine?: boolean };
}

export interface EventTargetLike {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

export interface WidgetClientOptions {
  /** The backend base (`data-api`, the element's `api`), e.g. `https://api.example.com`; `/api/web` is added. */
  apiUrl: string;
  publicKey: string;
  /** Where the refresh token lives; `localStorageAdapter()` by default. */
  storage?: TokenStorage;
  /** A config given up front (spec 4.4 `InjectableWidgetConfig`): `loadConfig` answers it without a request. */
  config?: WidgetConfig;
  /** `globalThis.fetch` by default. */
  fetch?: typeof fetch;
  /** `null`: listen to nothing (tests). */
  environment?: ClientEnvironment | null;
  /** Use `XMLHttpRequest` for uploads when it exists (upload progress); `true` by default. */
  useXhrUploads?: boolean;
  /** Renew the session this long before it expires (ms); default 60 000. */
  refreshMarginMs?: number;
  /** The server's heartbeat interval (ms; `WIDGET_SSE_HEARTBEAT_MS`); no byte for ~2 of them resyncs. Default 15 000. */
  heartbeatMs?: number;
  /** The longest reconnect delay (ms); default 30 000. */
  reconnectMaxMs?: number;
  /** An agent's typing indicator goes off after this long without news (ms); default 35 000. */
  agentTypingTimeoutMs?: number;
  /** At most one `typing: true` per this interval (ms); default 3 000. */
  typingThrottleMs?: number;
  /** [0, 1); `Math.random` by default (backoff jitter, ids). */
  random?: () => number;
}

/** An attachment to send with a message. */
export interface Attachment {
  file: Blob;
  /** Default: the `File`'s name, else `attachment`. */
  fileName?: string;
  caption?: string;
}

export interface SendOptions {
  attachments?: Attachment[];
  /** Default: a fresh random id. The same id again is the same message (safe retry). */
  clientMessageId?: string;
}

export interface UploadOptions {
  fileName?: string;
  caption?: string;
  /** Bytes sent so far of the total. */
  onProgress?(loaded: number, total: number): void;
  signal?: AbortSignal;
}

/**
 * The visitor's side of the widget HTTP API (docs/widget-api.md): everything the widget does over the network, so
 * the UI renders `getState()` and calls methods. Construct one per element; `destroy()` when it leaves the page.
 */
export class WidgetClient {
  constructor(readonly options: WidgetClientOptions) {
    throw new Error('not implemented yet');
  }

  /** The current snapshot. */
  getState(): WidgetClientState {
    throw new Error('not implemented yet');
  }

  /** Called with the new snapshot after every change; returns the unsubscribe function. */
  subscribe(listener: StateListener): () => void {
    void listener;
    throw new Error('not implemented yet');
  }

  /** `GET /config/:publicKey?view=gate`, reusing the last answer on `304` (ETag). */
  loadGate(): Promise<GateConfig> {
    throw new Error('not implemented yet');
  }

  /** `GET /config/:publicKey` (or the injected config), reusing the last answer on `304` (ETag); sets `state.config`. */
  loadConfig(): Promise<WidgetConfig> {
    throw new Error('not implemented yet');
  }

  /**
   * Resume the stored session, if this browser has one (the visitor opened the widget before): refresh it, load its
   * chat, open the stream. Never creates a visitor; without a stored token the state stays `idle`.
   */
  start(): Promise<void> {
    throw new Error('not implemented yet');
  }

  /**
   * The visitor opened the widget: from now on the client may store the refresh token and create a visitor. Resumes
   * the stored session or starts an anonymous one (with what the prechat form asked), unless one is running.
   */
  open(profile?: VisitorProfile): Promise<void> {
    void profile;
    throw new Error('not implemented yet');
  }

  /**
   * The page identified the visitor (`user`): an identified handshake (the proof that decides is spec 2.4's:
   * `googleIdToken`, else `jwt`, else `userId` + `userHash`); an anonymous session's chat moves to them. `null` logs
   * out: like `shutdown()`.
   */
  identify(user: VisitorIdentity | null): Promise<void> {
    void user;
    throw new Error('not implemented yet');
  }

  /**
   * End the session (`/visitor/end`), forget the stored token and the chat, and start a fresh anonymous visitor
   * (at once when the visitor has opened the widget on this page, else at the next `open`).
   */
  shutdown(): Promise<void> {
    throw new Error('not implemented yet');
  }

  /**
   * Send a message: it appears at once as `pending`, then `sent` (or `failed`: `retry(key)`). Attachments are
   * uploaded first (progress in `state.uploads`). Starts an anonymous session when there is none.
   */
  send(text: string, options?: SendOptions): Promise<ChatMessage> {
    void text;
    void options;
    throw new Error('not implemented yet');
  }

  /** Send a failed message again with its `clientMessageId` (the server keeps one message however often it is sent). */
  retry(key: string): Promise<ChatMessage> {
    void key;
    throw new Error('not implemented yet');
  }

  /** Upload one file (`POST /media`) with progress; send its `_id` in a message. */
  upload(file: Blob, options?: UploadOptions): Promise<UploadedMedia> {
    void file;
    void options;
    throw new Error('not implemented yet');
  }

  /** The UI showed these agent messages: acknowledge them as `DELIVERED` (each once). */
  markDelivered(messageIds: readonly string[]): Promise<void> {
    void messageIds;
    throw new Error('not implemented yet');
  }

  /** The visitor saw the chat up to `messageId` (default: the newest agent message): `READ`, unread count 0. */
  markRead(messageId?: string): Promise<void> {
    void messageId;
    throw new Error('not implemented yet');
  }

  /** The visitor is typing (`true` on each keystroke; throttled) or stopped (`false`, sent once). */
  setTyping(typing: boolean): void {
    void typing;
    throw new Error('not implemented yet');
  }

  /** Load the page of messages before the oldest one held (no skips, no repeats). */
  loadOlder(): Promise<void> {
    throw new Error('not implemented yet');
  }

  /** Reconnect the stream now (a banner's "retry"); a `404`-ended stream stays ended. */
  reconnect(): void {
    throw new Error('not implemented yet');
  }

  /** Stop the stream, timers and listeners; the session is kept for the next page (not ended). */
  destroy(): void {
    throw new Error('not implemented yet');
  }
}
