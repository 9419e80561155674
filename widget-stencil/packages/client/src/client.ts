import type { VisitorIdentity } from '@svc-inbox/widget-protocol';
import { WidgetApiError } from './errors.js';
import { apiBase, call, networkError, type CallOptions, type Fetch } from './http.js';
import { addPending, confirmSent, updateUnsent, upsertMessages } from './message-store.js';
import type { Attachment, ClientEnvironment, SendOptions, UploadOptions, WidgetClientOptions } from './options.js';
import { SessionCalls, forgetStored, readStored, writeStored } from './sessions.js';
import type { SseEvent } from './sse.js';
import type { ChatMessage, StateListener, UploadState, WidgetClientState } from './state.js';
import { localStorageAdapter, type TokenStorage } from './storage.js';
import { ChatStream } from './stream.js';
import type {
  ChatStatus,
  ChatSummary,
  GateConfig,
  MessagePage,
  UploadedMedia,
  VisitorMessage,
  VisitorProfile,
  VisitorSession,
  WidgetConfig,
} from './types.js';
import { uploadMedia, xhrConstructor } from './upload.js';

export type {
  Attachment,
  ClientEnvironment,
  EventTargetLike,
  SendOptions,
  UploadOptions,
  WidgetClientOptions,
} from './options.js';

/** The session in memory: the bearer token never leaves it (no storage, no URL). */
interface LiveSession {
  token: string;
  /** Local clock time (ms) at which to renew. */
  renewAt: number;
  refreshToken: string;
  identified: boolean;
  chatId: string;
}

/** A message not yet taken by the server: what a retry sends again. */
interface Outgoing {
  clientMessageId: string;
  text: string;
  attachments: Attachment[];
  /** Uploaded so far, by attachment index (a retry does not upload them again). */
  mediaIds: (string | undefined)[];
}

const PAGE_SIZE = 30;

const INITIAL_STATE: WidgetClientState = {
  connection: 'idle',
  config: null,
  consented: false,
  visitor: 'none',
  chat: null,
  messages: [],
  hasOlder: false,
  loadingOlder: false,
  agentTyping: null,
  unreadCount: 0,
  uploads: [],
  error: null,
};

/**
 * The visitor's side of the widget HTTP API (docs/widget-api.md): everything the widget does over the network, so
 * the UI renders `getState()` and calls methods. Construct one per element; `destroy()` when it leaves the page.
 */
export class WidgetClient {
  private state: WidgetClientState = INITIAL_STATE;
  private readonly listeners = new Set<StateListener>();
  private readonly fetcher: Fetch;
  private readonly base: string;
  private readonly storage: TokenStorage;
  private readonly calls: SessionCalls;
  private readonly random: () => number;
  private readonly environment: ClientEnvironment | null;
  private session: LiveSession | null = null;
  /** The identity the page gave (a lost session comes back identified, not anonymous). */
  private identity: VisitorIdentity | null = null;
  private lastSeq = 0;
  private olderCursor: string | undefined;
  /** Messages of the loaded chat the server counted unread that are not held (older than the loaded pages). */
  private unreadBeyond = 0;
  /** Serialises handshakes, shutdowns and identify calls so they never interleave. */
  private sessionQueue: Promise<unknown> = Promise.resolve();
  private renewing: Promise<boolean> | undefined;
  private renewTimer: ReturnType<typeof setTimeout> | undefined;
  private stream: ChatStream | undefined;
  private readonly outgoing = new Map<string, Outgoing>();
  private readonly acknowledged = new Set<string>();
  private readonly configCache = new Map<string, { etag: string; body: unknown }>();
  private typingSentAt = 0;
  private typingOn = false;
  private typingIdleTimer: ReturnType<typeof setTimeout> | undefined;
  private agentTypingTimer: ReturnType<typeof setTimeout> | undefined;
  private destroyed = false;
  private readonly detach: (() => void)[] = [];

  constructor(readonly options: WidgetClientOptions) {
    const fetcher = options.fetch ?? globalThis.fetch;
    // A bare `fetch` reference must be called on globalThis in browsers ("Illegal invocation").
    this.fetcher = options.fetch ? fetcher : (input, init) => fetcher.call(globalThis, input, init);
    this.base = apiBase(options.apiUrl);
    this.storage = options.storage ?? localStorageAdapter();
    this.calls = new SessionCalls(this.fetcher, this.base, options.publicKey);
    this.random = options.random ?? Math.random;
    this.environment = options.environment === undefined ? defaultEnvironment() : options.environment;
    if (options.config) this.state = { ...this.state, config: options.config };
    this.listen();
  }

  /** The current snapshot. */
  getState(): WidgetClientState {
    return this.state;
  }

  /** Called with the new snapshot after every change; returns the unsubscribe function. */
  subscribe(listener: StateListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** `GET /config/:publicKey?view=gate`, reusing the last answer on `304` (ETag). */
  loadGate(): Promise<GateConfig> {
    return this.fetchConfig<GateConfig>('?view=gate');
  }

  /** `GET /config/:publicKey` (or the injected config), reusing the last answer on `304` (ETag); sets `state.config`. */
  async loadConfig(): Promise<WidgetConfig> {
    if (this.options.config) return this.options.config;
    const config = await this.fetchConfig<WidgetConfig>('');
    if (config !== this.state.config) this.update({ config });
    return config;
  }

  /**
   * Resume the stored session, if this browser has one (the visitor opened the widget before): refresh it, load its
   * chat, open the stream. Never creates a visitor; without a stored token the state stays `idle`.
   */
  start(): Promise<void> {
    return this.serially(async () => {
      if (this.session) return;
      await this.resumeStored();
    });
  }

  /**
   * The visitor opened the widget: from now on the client may store the refresh token and create a visitor. Resumes
   * the stored session or starts an anonymous one (with what the prechat form asked), unless one is running.
   */
  open(profile?: VisitorProfile): Promise<void> {
    return this.serially(() => this.ensureSession(profile));
  }

  /**
   * The page identified the visitor (`user`): an identified handshake (the proof that decides is spec 2.4's:
   * `googleIdToken`, else `jwt`, else `userId` + `userHash`); an anonymous session's chat moves to them. `null` logs
   * out: like `shutdown()`.
   */
  identify(user: VisitorIdentity | null): Promise<void> {
    if (user === null) return this.shutdown();
    return this.serially(async () => {
      this.update({ consented: true });
      const previous = this.session ?? readStored(this.storage, this.options.publicKey);
      // Only an anonymous session moves to the identified visitor; another identified visitor's session is ended.
      const moving = previous && !previous.identified ? previous.refreshToken : undefined;
      const session = await this.handshake(() => this.calls.startIdentified(user, moving));
      this.identity = user;
      if (previous?.identified && previous.refreshToken !== session.refreshToken) {
        void this.calls.end(previous.refreshToken).catch(() => undefined);
      }
    });
  }

  /**
   * End the session (`/visitor/end`), forget the stored token and the chat, and start a fresh anonymous visitor
   * (at once when the visitor has opened the widget on this page, else at the next `open`).
   */
  shutdown(): Promise<void> {
    return this.serially(async () => {
      const refreshToken = this.session?.refreshToken ?? readStored(this.storage, this.options.publicKey)?.refreshToken;
      this.dropSession();
      this.identity = null;
      forgetStored(this.storage, this.options.publicKey);
      this.outgoing.clear();
      this.acknowledged.clear();
      this.update({ ...INITIAL_STATE, config: this.state.config, consented: this.state.consented });
      if (refreshToken) await this.calls.end(refreshToken).catch(() => undefined);
      if (this.state.consented) await this.handshake(() => this.calls.startAnonymous());
    });
  }

  /**
   * Send a message: it appears at once as `pending`, then `sent` (or `failed`: `retry(key)`). Attachments are
   * uploaded first (progress in `state.uploads`). Starts an anonymous session when there is none.
   */
  async send(text: string, options: SendOptions = {}): Promise<ChatMessage> {
    const attachments = options.attachments ?? [];
    if (!text.trim() && attachments.length === 0) {
      throw new WidgetApiError(400, 'BAD_USER_INPUT', 'a message needs text or an attachment', { field: 'text' });
    }
    const clientMessageId = options.clientMessageId ?? newClientMessageId(this.random);
    this.outgoing.set(clientMessageId, { clientMessageId, text, attachments, mediaIds: [] });
    this.update({ messages: addPending(this.state.messages, pendingMessage(clientMessageId, text, this.session)) });
    if (this.typingOn) this.setTyping(false);
    return this.deliver(clientMessageId);
  }

  /** Send a failed message again with its `clientMessageId` (the server keeps one message however often it is sent). */
  async retry(key: string): Promise<ChatMessage> {
    const held = this.state.messages.find((message) => message.key === key);
    if (!held) throw new WidgetApiError(404, 'NOT_FOUND', 'no such message');
    if (held.sendState === 'sent' || !this.outgoing.has(key)) return held;
    this.update({ messages: updateUnsent(this.state.messages, key, { sendState: 'pending', error: undefined }) });
    return this.deliver(key);
  }

  /** Upload one file (`POST /media`) with progress; send its `_id` in a message. */
  async upload(file: Blob, options: UploadOptions = {}): Promise<UploadedMedia> {
    await this.serially(() => this.ensureSession());
    const fileName = options.fileName ?? nameOf(file);
    const query = options.caption ? `?caption=${encodeURIComponent(options.caption)}` : '';
    const Xhr = this.options.useXhrUploads === false ? undefined : xhrConstructor();
    return this.authorized((token) =>
      uploadMedia(
        {
          url: `${this.base}/media${query}`,
          token,
          file,
          fileName,
          onProgress: options.onProgress,
          signal: options.signal,
        },
        this.fetcher,
        Xhr,
      ),
    );
  }

  /** The UI showed these agent messages: acknowledge them as `DELIVERED` (each once). */
  async markDelivered(messageIds: readonly string[]): Promise<void> {
    const chatId = this.session?.chatId;
    if (!chatId) return;
    const due = messageIds.filter((id) => {
      const message = this.state.messages.find((held) => held._id === id && held.sendState === 'sent');
      return (
        message?.direction === 'OUTBOUND' &&
        (message.deliveryStatus === 'SENT' || message.deliveryStatus === 'QUEUED') &&
        !this.acknowledged.has(id)
      );
    });
    if (due.length === 0) return;
    for (const id of due) this.acknowledged.add(id);
    try {
      await this.chatCall(chatId, '/delivered', { body: { messageIds: due } });
    } catch (error) {
      for (const id of due) this.acknowledged.delete(id);
      throw error;
    }
  }

  /** The visitor saw the chat up to `messageId` (default: the newest agent message): `READ`, unread count 0. */
  async markRead(messageId?: string): Promise<void> {
    const chatId = this.session?.chatId;
    if (!chatId) return;
    const agents = this.state.messages.filter((held) => held.direction === 'OUTBOUND' && held.sendState === 'sent');
    const upTo = messageId ?? agents[agents.length - 1]?._id;
    if (!upTo || this.state.unreadCount === 0) return;
    const answer = await this.chatCall<ChatSummary>(chatId, '/read', { body: { messageId: upTo } });
    const reached = this.state.messages.findIndex((held) => held._id === upTo);
    const messages = this.state.messages.map((held, index) =>
      held.direction === 'OUTBOUND' && index <= reached && held.deliveryStatus !== 'READ'
        ? { ...held, deliveryStatus: 'READ' as const }
        : held,
    );
    // The server's count covers the whole chat; what is held is recounted from the messages themselves.
    this.unreadBeyond = Math.max(0, (answer?.unreadCount ?? 0) - heldUnread(messages));
    this.update({ messages, unreadCount: heldUnread(messages) + this.unreadBeyond });
  }

  /** The visitor is typing (`true` on each keystroke; throttled) or stopped (`false`, sent once). */
  setTyping(typing: boolean): void {
    const chatId = this.session?.chatId;
    if (!chatId) return;
    const throttle = this.options.typingThrottleMs ?? 3_000;
    clearTimeout(this.typingIdleTimer);
    if (typing) {
      // No keystroke for two throttle intervals: the visitor stopped, even if the UI never says so.
      this.typingIdleTimer = setTimeout(() => this.setTyping(false), throttle * 2);
      const now = Date.now();
      if (this.typingOn && now - this.typingSentAt < throttle) return;
      this.typingOn = true;
      this.typingSentAt = now;
    } else {
      if (!this.typingOn) return;
      this.typingOn = false;
    }
    void this.chatCall(chatId, '/typing', { body: { typing } }).catch(() => undefined);
  }

  /** Load the page of messages before the oldest one held (no skips, no repeats). */
  async loadOlder(): Promise<void> {
    const chatId = this.session?.chatId;
    if (!chatId || !this.state.hasOlder || this.state.loadingOlder || !this.olderCursor) return;
    this.update({ loadingOlder: true });
    try {
      const cursor = encodeURIComponent(this.olderCursor);
      const page = await this.chatCall<MessagePage>(chatId, `/messages?cursor=${cursor}&limit=${PAGE_SIZE}`);
      if (!page || this.session?.chatId !== chatId) return;
      // Newest first, keyset-paged (decision 0001): `nextCursor` is the oldest of this page, `hasNext` says more.
      this.olderCursor = page.nextCursor;
      this.update({ messages: upsertMessages(this.state.messages, page.data), hasOlder: page.hasNext });
    } finally {
      this.update({ loadingOlder: false });
    }
  }

  /** Reconnect the stream now (a banner's "retry"); a `404`-ended stream stays ended. */
  reconnect(): void {
    this.stream?.reconnectNow();
  }

  /** Stop the stream, timers and listeners; the session is kept for the next page (not ended). */
  destroy(): void {
    this.destroyed = true;
    this.dropSession();
    for (const stop of this.detach.splice(0)) stop();
    this.listeners.clear();
  }

  // ---- sessions ----

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.sessionQueue.then(work, work);
    this.sessionQueue = run.catch(() => undefined);
    return run;
  }

  private async ensureSession(profile?: VisitorProfile): Promise<void> {
    this.update({ consented: true });
    if (this.session) return;
    if (await this.resumeStored()) return;
    const identity = this.identity;
    if (identity) await this.handshake(() => this.calls.startIdentified(identity));
    else await this.handshake(() => this.calls.startAnonymous(profile));
  }

  /** Refresh the stored session; forgets a token the server refuses. True when a session is running. */
  private async resumeStored(): Promise<boolean> {
    const stored = readStored(this.storage, this.options.publicKey);
    if (!stored) return false;
    // A token in storage means the visitor opened the widget (or was identified) on an earlier page.
    this.update({ consented: true });
    try {
      await this.handshake(() => this.calls.refresh(stored.refreshToken));
      return true;
    } catch (error) {
      // Refused: a new visitor is due. A 404 (integration disabled) keeps the token: enabled again, it works again.
      if (error instanceof WidgetApiError && error.status === 401) {
        forgetStored(this.storage, this.options.publicKey);
        this.update({ error: null });
        return false;
      }
      throw error;
    }
  }

  /** Run a handshake and take its session; a refusal is kept in `state.error` and rethrown. */
  private async handshake(request: () => Promise<VisitorSession>): Promise<VisitorSession> {
    try {
      const session = await request();
      this.adopt(session, 'handshake');
      return session;
    } catch (error) {
      const failure = networkError(error);
      if (failure.status === 404) this.update({ connection: 'ended' });
      this.update({ error: failure });
      throw failure;
    }
  }

  /**
   * Take a handshake's or a refresh's session: memory, storage (once consented), renewal timer, chat, stream. A
   * handshake on the chat already shown (anonymous → identified keeps it) reconnects the stream as the new visitor.
   */
  private adopt(answer: VisitorSession, kind: 'handshake' | 'refresh'): void {
    if (this.destroyed) return;
    const sameChat = this.session?.chatId === answer.chat._id;
    const ttl = lifetimeOf(answer);
    const chosen = this.options.refreshMarginMs;
    const margin = chosen === undefined ? Math.min(60_000, ttl / 5) : Math.min(chosen, ttl);
    this.session = {
      token: answer.sessionToken,
      renewAt: Date.now() + ttl - margin,
      refreshToken: answer.refreshToken,
      identified: answer.identified,
      chatId: answer.chat._id,
    };
    if (this.state.consented) {
      writeStored(this.storage, this.options.publicKey, {
        refreshToken: answer.refreshToken,
        identified: answer.identified,
      });
    }
    this.scheduleRenewal();
    const visitor = answer.identified ? 'identified' : 'anonymous';
    if (sameChat) {
      const messages = upsertMessages(this.state.messages, answer.messages.data);
      this.update({
        visitor,
        error: null,
        chat: { ...answer.chat, lastEventSeq: this.lastSeq },
        messages,
        unreadCount: heldUnread(messages) + this.unreadBeyond,
      });
      if (kind === 'handshake') this.stream?.reconnectNow();
      return;
    }
    this.stopStream();
    const messages = upsertMessages(
      this.state.messages.filter((held) => held.sendState !== 'sent'),
      answer.messages.data,
    ).map((held) => (held.sendState === 'sent' ? held : { ...held, chatId: answer.chat._id }));
    this.lastSeq = answer.chat.lastEventSeq;
    this.olderCursor = answer.messages.nextCursor;
    this.acknowledged.clear();
    this.unreadBeyond = Math.max(0, answer.chat.unreadCount - heldUnread(messages));
    this.update({
      visitor,
      error: null,
      chat: answer.chat,
      messages,
      hasOlder: answer.messages.hasNext,
      agentTyping: null,
      unreadCount: heldUnread(messages) + this.unreadBeyond,
    });
    this.openStream(answer.chat._id);
  }

  private scheduleRenewal(): void {
    clearTimeout(this.renewTimer);
    const session = this.session;
    if (!session || this.destroyed) return;
    this.renewTimer = setTimeout(
      () => {
        void this.renew().then((renewed) => {
          // A failed renewal that kept the session (network): try again in a while.
          if (!renewed && this.session === session) {
            session.renewAt = Date.now() + 5_000;
            this.scheduleRenewal();
          }
        });
      },
      Math.max(0, session.renewAt - Date.now()),
    );
  }

  /**
   * `/visitor/refresh`, one at a time and never during a handshake (both would present the same refresh token). False
   * when there is no new session (the old one may still work).
   */
  private renew(): Promise<boolean> {
    if (!this.renewing) {
      this.renewing = this.serially(() => this.refreshOnce()).finally(() => {
        this.renewing = undefined;
      });
    }
    return this.renewing;
  }

  private async refreshOnce(): Promise<boolean> {
    const session = this.session;
    if (!session) return false;
    try {
      const renewed = await this.calls.refresh(session.refreshToken);
      if (this.session !== session) return this.session !== null;
      this.adopt(renewed, 'refresh');
      return true;
    } catch (error) {
      const failure = networkError(error);
      if (failure.status === 401) {
        // Another tab of this browser may have rotated the shared token a moment ago: take theirs.
        const stored = readStored(this.storage, this.options.publicKey);
        if (stored && stored.refreshToken !== session.refreshToken && this.session === session) {
          session.refreshToken = stored.refreshToken;
          return this.refreshOnce();
        }
      }
      if (failure.status === 401 || failure.status === 404) this.loseSession(failure);
      return false;
    }
  }

  /** The session cannot go on (refused renewal, the integration gone): stop cleanly, keep what is on screen. */
  private loseSession(error: WidgetApiError): void {
    this.dropSession();
    if (error.status === 401) forgetStored(this.storage, this.options.publicKey);
    this.update({ connection: 'ended', visitor: 'none', agentTyping: null, error });
  }

  private dropSession(): void {
    this.session = null;
    clearTimeout(this.renewTimer);
    clearTimeout(this.typingIdleTimer);
    clearTimeout(this.agentTypingTimer);
    this.typingOn = false;
    this.stopStream();
  }

  /** A visitor route with the session token; on `401` the session is renewed once and the call made again. */
  private async authorized<T>(request: (token: string) => Promise<T>): Promise<T> {
    const session = this.session;
    if (!session) throw new WidgetApiError(401, 'UNAUTHENTICATED', 'no visitor session');
    try {
      return await request(session.token);
    } catch (error) {
      const failure = networkError(error);
      if (failure.status === 404 && this.session === session) {
        this.loseSession(failure);
        throw failure;
      }
      if (failure.status !== 401) throw failure;
      if (!(await this.renew()) || !this.session) throw failure;
      try {
        return await request(this.session.token);
      } catch (again) {
        const second = networkError(again);
        if (second.status === 401) this.loseSession(second);
        throw second;
      }
    }
  }

  private async chatCall<T>(chatId: string, path: string, options: CallOptions = {}): Promise<T | undefined> {
    const url = `${this.base}/chats/${encodeURIComponent(chatId)}${path}`;
    return (await this.authorized((token) => call<T>(this.fetcher, url, { ...options, token }))).body;
  }

  // ---- sending ----

  private async deliver(key: string): Promise<ChatMessage> {
    const outgoing = this.outgoing.get(key);
    if (!outgoing) throw new WidgetApiError(404, 'NOT_FOUND', 'no such message');
    try {
      await this.serially(() => this.ensureSession());
      const mediaIds = await this.uploadAll(key, outgoing);
      const chatId = this.session?.chatId;
      if (!chatId) throw new WidgetApiError(401, 'UNAUTHENTICATED', 'no visitor session');
      const answer = await this.chatCall<{ _id: string; createdAt: string }>(chatId, '/messages', {
        body: {
          clientMessageId: outgoing.clientMessageId,
          text: outgoing.text.trim() ? outgoing.text : undefined,
          mediaIds: mediaIds.length > 0 ? mediaIds : undefined,
        },
      });
      if (!answer) throw new WidgetApiError(500, 'INTERNAL_SERVER_ERROR', 'empty answer');
      this.outgoing.delete(key);
      this.update({
        messages: confirmSent(this.state.messages, key, { _id: answer._id, createdAt: answer.createdAt }),
        uploads: this.state.uploads.filter((upload) => upload.messageKey !== key),
      });
    } catch (error) {
      this.update({
        messages: updateUnsent(this.state.messages, key, { sendState: 'failed', error: networkError(error) }),
      });
    }
    return this.state.messages.find((message) => message.key === key)!;
  }

  private async uploadAll(key: string, outgoing: Outgoing): Promise<string[]> {
    const progress = (index: number, change: Partial<UploadState>) => {
      const uploads = this.state.uploads.slice();
      const at = uploads.findIndex((upload) => upload.messageKey === key && upload.fileName === names[index]);
      if (at !== -1) uploads[at] = { ...uploads[at]!, ...change };
      this.update({ uploads });
    };
    const names = outgoing.attachments.map((attachment) => attachment.fileName ?? nameOf(attachment.file));
    this.update({
      uploads: [
        ...this.state.uploads.filter((upload) => upload.messageKey !== key),
        ...outgoing.attachments.map((attachment, index) => ({
          messageKey: key,
          fileName: names[index]!,
          loaded: outgoing.mediaIds[index] ? attachment.file.size : 0,
          total: attachment.file.size,
          state: outgoing.mediaIds[index] ? ('done' as const) : ('uploading' as const),
        })),
      ],
    });
    for (const [index, attachment] of outgoing.attachments.entries()) {
      if (outgoing.mediaIds[index]) continue;
      try {
        const media = await this.upload(attachment.file, {
          fileName: names[index],
          caption: attachment.caption,
          onProgress: (loaded, total) => progress(index, { loaded, total }),
        });
        outgoing.mediaIds[index] = media._id;
        progress(index, { state: 'done' });
      } catch (error) {
        progress(index, { state: 'failed' });
        throw error;
      }
    }
    return outgoing.mediaIds.filter((id): id is string => id !== undefined);
  }

  // ---- the stream ----

  private openStream(chatId: string): void {
    if (this.destroyed) return;
    const stream = new ChatStream(
      {
        url: `${this.base}/realtime/${encodeURIComponent(chatId)}`,
        fetch: this.fetcher,
        heartbeatMs: this.options.heartbeatMs ?? 15_000,
        reconnectMaxMs: this.options.reconnectMaxMs ?? 30_000,
        random: this.random,
        online: () => this.environment?.navigator?.onLine !== false,
      },
      {
        token: () => (this.session?.chatId === chatId ? this.session.token : null),
        lastSeq: () => this.lastSeq,
        onEvent: (event) => this.onStreamEvent(chatId, event),
        onState: (connection) => {
          if (this.stream === stream && connection !== this.state.connection) this.update({ connection });
        },
        renew: () => this.renew(),
        onEnded: (error) => {
          if (this.stream === stream) this.loseSession(error);
        },
      },
    );
    this.stream = stream;
    stream.start();
  }

  private stopStream(): void {
    this.stream?.stop();
    this.stream = undefined;
  }

  private onStreamEvent(chatId: string, event: SseEvent): void {
    let data: StreamData;
    try {
      data = JSON.parse(event.data) as StreamData;
    } catch {
      return;
    }
    if (event.type === 'typing') return this.onAgentTyping(data);
    if (typeof data.seq !== 'number' || data.chatId !== chatId || this.session?.chatId !== chatId) return;
    // Sequence numbers have no gaps and a reconnect replays after the last one processed: an older one is a repeat.
    if (data.seq <= this.lastSeq) return;
    this.lastSeq = data.seq;
    const chat = this.state.chat && { ...this.state.chat, lastEventSeq: data.seq };
    if (data.message) {
      const message = data.message;
      const known = this.state.messages.some((held) => held._id === message._id && held.sendState === 'sent');
      const messages = upsertMessages(this.state.messages, [message]);
      const agentSpoke = event.type === 'message.created' && !known && message.direction === 'OUTBOUND';
      this.update({
        chat,
        messages,
        unreadCount: heldUnread(messages) + this.unreadBeyond,
        agentTyping: agentSpoke ? null : this.state.agentTyping,
      });
      return;
    }
    if (data.status && chat) this.update({ chat: { ...chat, status: data.status } });
    else this.update({ chat });
  }

  private onAgentTyping(data: StreamData): void {
    clearTimeout(this.agentTypingTimer);
    if (!data.typing) {
      this.update({ agentTyping: null });
      return;
    }
    this.update({ agentTyping: { displayName: data.displayName ?? '', avatarUrl: data.avatarUrl } });
    // Our own off switch: the server's `typing: false` can be lost with a dropped stream.
    this.agentTypingTimer = setTimeout(
      () => this.update({ agentTyping: null }),
      this.options.agentTypingTimeoutMs ?? 35_000,
    );
  }

  // ---- plumbing ----

  private async fetchConfig<T>(query: string): Promise<T> {
    const url = `${this.base}/config/${encodeURIComponent(this.options.publicKey)}${query}`;
    const cached = this.configCache.get(query);
    const answer = await call<T>(this.fetcher, url, { headers: cached ? { 'if-none-match': cached.etag } : {} });
    if (answer.status === 304 && cached) return cached.body as T;
    if (!answer.body) throw new WidgetApiError(answer.status, 'INTERNAL_SERVER_ERROR', 'empty config answer');
    const etag = answer.headers.get('etag');
    if (etag) this.configCache.set(query, { etag, body: answer.body });
    return answer.body;
  }

  private listen(): void {
    const environment = this.environment;
    if (!environment) return;
    const on = (target: ClientEnvironment['window'], type: string, listener: () => void) => {
      if (!target) return;
      target.addEventListener(type, listener);
      this.detach.push(() => target.removeEventListener(type, listener));
    };
    on(environment.window, 'online', () => this.stream?.reconnectNow());
    on(environment.window, 'offline', () => this.stream?.wentOffline());
    on(environment.document, 'visibilitychange', () => {
      if (environment.document?.visibilityState === 'visible') this.stream?.becameVisible(Date.now());
    });
  }

  private update(change: Partial<WidgetClientState>): void {
    if (this.destroyed && this.listeners.size === 0) return;
    this.state = { ...this.state, ...change };
    for (const listener of [...this.listeners]) listener(this.state);
  }
}

interface StreamData {
  seq?: number;
  chatId?: string;
  message?: VisitorMessage;
  status?: ChatStatus;
  typing?: boolean;
  displayName?: string;
  avatarUrl?: string;
}

/**
 * The session's lifetime in ms, measured on the server's clock (the token's `exp - iat`), so a browser clock that is
 * off does not renew too late; `sessionExpiresAt` against the local clock when the token cannot be read.
 */
function lifetimeOf(answer: VisitorSession): number {
  try {
    const part = answer.sessionToken.split('.')[1] ?? '';
    const claims = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as { iat?: unknown; exp?: unknown };
    if (typeof claims.iat === 'number' && typeof claims.exp === 'number')
      return Math.max(0, claims.exp - claims.iat) * 1000;
  } catch {
    // not a JWT we can read: fall back
  }
  return Math.max(0, Date.parse(answer.sessionExpiresAt) - Date.now());
}

/** Agent messages held that the visitor has not read. */
function heldUnread(messages: readonly ChatMessage[]): number {
  return messages.filter(
    (message) =>
      message.direction === 'OUTBOUND' &&
      message.sendState === 'sent' &&
      !message.deleted &&
      message.deliveryStatus !== 'READ',
  ).length;
}

function pendingMessage(clientMessageId: string, text: string, session: LiveSession | null): ChatMessage {
  return {
    _id: '',
    key: clientMessageId,
    clientMessageId,
    sendState: 'pending',
    chatId: session?.chatId ?? '',
    direction: 'INBOUND',
    author: { type: 'CONTACT' },
    type: 'TEXT',
    text,
    media: [],
    buttons: [],
    deliveryStatus: 'NOT_APPLICABLE',
    createdAt: new Date().toISOString(),
    deleted: false,
  };
}

/** 128 random bits from `crypto.getRandomValues` when there is one (every browser, Node 20), else `random`. */
function newClientMessageId(random: () => number): string {
  const bytes = new Uint8Array(16);
  const crypto = (globalThis as { crypto?: { getRandomValues?(array: Uint8Array): Uint8Array } }).crypto;
  if (crypto?.getRandomValues) crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  return `cm_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function nameOf(file: Blob): string {
  const name = (file as { name?: unknown }).name;
  return typeof name === 'string' && name ? name : 'attachment';
}

function defaultEnvironment(): ClientEnvironment | null {
  const scope = globalThis as {
    window?: ClientEnvironment['window'];
    document?: ClientEnvironment['document'];
    navigator?: ClientEnvironment['navigator'];
  };
  if (!scope.window && !scope.document) return null;
  return { window: scope.window, document: scope.document, navigator: scope.navigator };
}
