import type { TokenStorage } from './storage.js';
import type { WidgetConfig } from './types.js';

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
  /**
   * Renew the session this long before it expires (ms). Default: 60 000 or a fifth of the session's lifetime,
   * whichever is shorter; a margin given here is used as given (at most the lifetime).
   */
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
