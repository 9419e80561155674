import type { WidgetApiError } from './errors.js';
import type { ChatSummary, VisitorMessage, WidgetConfig } from './types.js';

/**
 * The stream's state, for a reconnect banner: `idle` (no session yet), `connecting` (first connection of a
 * session), `live` (stream open), `reconnecting` (dropped; retrying with backoff), `offline` (the browser says it is
 * offline; retried when it is back), `ended` (stopped for good: the integration is gone or the session could not be
 * renewed; a new handshake starts again).
 */
export type ConnectionState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'offline' | 'ended';

/** `pending` until the server took it, `failed` when it did not (retry it), `sent` for everything the server has. */
export type SendState = 'pending' | 'sent' | 'failed';

/** A message of the chat as the UI lists it. */
export interface ChatMessage extends VisitorMessage {
  /** Stable across pending → sent: the `clientMessageId` of a message sent from this page, else `_id`. */
  key: string;
  /** Set on messages sent from this page. */
  clientMessageId?: string;
  sendState: SendState;
  /** Why the last attempt failed (`sendState: 'failed'`). */
  error?: WidgetApiError;
}

/** An agent typing (from the stream), until they stop or the client's own timeout passes. */
export interface AgentTyping {
  displayName: string;
  avatarUrl?: string;
}

/** One attachment's upload, bytes sent of total. */
export interface UploadState {
  /** The `key` of the message it belongs to. */
  messageKey: string;
  fileName: string;
  loaded: number;
  total: number;
  state: 'uploading' | 'done' | 'failed';
}

export type VisitorKind = 'none' | 'anonymous' | 'identified';

/** The snapshot `getState()` returns and listeners receive; a new object on every change (compare by reference). */
export interface WidgetClientState {
  connection: ConnectionState;
  /** The full config once loaded (or injected). */
  config: WidgetConfig | null;
  /**
   * Whether the visitor opened the widget or the page identified them. Before that the client stores nothing and
   * creates no visitor.
   */
  consented: boolean;
  visitor: VisitorKind;
  chat: ChatSummary | null;
  /** Oldest first. */
  messages: readonly ChatMessage[];
  /** Whether older messages can be loaded (`loadOlder`). */
  hasOlder: boolean;
  loadingOlder: boolean;
  agentTyping: AgentTyping | null;
  /** Agent messages the visitor has not read. */
  unreadCount: number;
  uploads: readonly UploadState[];
  /** The last failure the visitor should hear about (a refused handshake, a lost session); `null` after a success. */
  error: WidgetApiError | null;
}

export type StateListener = (state: WidgetClientState) => void;
