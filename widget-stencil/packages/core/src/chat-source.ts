import { type VisitorIdentity } from '@svc-inbox/widget-protocol';

/**
 * What the element shows, whoever feeds it: the demo (local, no network) or the live conversation
 * (@svc-inbox/widget-client). The element renders `view` and calls the actions; it holds no protocol logic.
 */
export type Delivery = 'pending' | 'sent' | 'delivered' | 'read' | 'failed';
export type Connection = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'offline' | 'ended';

export interface ViewAttachment {
  name: string;
  url: string;
  contentType: string;
}

export interface ViewMessage {
  id: string;
  /** The visitor's own message. */
  mine: boolean;
  text: string;
  createdAt: string;
  authorName: string;
  avatarUrl?: string;
  /** The visitor's messages only. */
  delivery?: Delivery;
  attachments: ViewAttachment[];
}

export interface ViewUpload {
  id: string;
  name: string;
  percent: number;
}

export interface ChatView {
  /** Oldest first. */
  messages: ViewMessage[];
  typing: { name: string; avatarUrl?: string } | null;
  connection: Connection;
  unread: number;
  hasOlder: boolean;
  uploads: ViewUpload[];
  /** The conversation has begun (a session exists); before that the prechat form may be shown. */
  started: boolean;
  error: boolean;
}

export interface Profile {
  name?: string;
  email?: string;
  phone?: string;
}

export interface ChatSource {
  readonly view: ChatView;
  /** Calls `listener` after every change of `view`; answers the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** Begins (or resumes) the conversation; `profile` is what the prechat form collected. */
  start(profile?: Profile): Promise<void>;
  /** The page identified the visitor, or logged them out (`null`: a fresh anonymous visitor follows). */
  identify(user: VisitorIdentity | null): Promise<void>;
  /** Ends the session; a fresh anonymous visitor follows. */
  shutdown(): Promise<void>;
  send(text: string): Promise<void>;
  retry(messageId: string): Promise<void>;
  upload(file: File): Promise<void>;
  typing(): void;
  loadOlder(): Promise<void>;
  /** The visitor sees the conversation (panel open and visible): acknowledge what is shown. */
  seen(): void;
  stop(): void;
}

export function emptyView(): ChatView {
  return {
    messages: [],
    typing: null,
    connection: 'idle',
    unread: 0,
    hasOlder: false,
    uploads: [],
    started: false,
    error: false,
  };
}
