import type { ServerResponse } from 'node:http';
import { NotFound, type Logger } from '@svc/kit';
import { DeliveryStatus, MessageDirection } from '@svc/proto/inbox/v1';
import type { VisitorEvent } from '@svc/proto/inbox/v1/visitor';
import type { Backends, VisitorIdentityOfSession } from '../domain/backends';
import { chatEventData, typingData, type TypingNotice, type VisitorView } from './event-data';

/** One open SSE response and the highest event sequence number written to it. */
interface Stream {
  response: ServerResponse;
  visitor: VisitorIdentityOfSession;
  lastSent: number;
}

/** The open streams of one chat on this replica, and its one fetch at a time. */
interface ChatStreams {
  streams: Set<Stream>;
  view: VisitorView;
  fetching: boolean;
  /** A change arrived while fetching: fetch again when done. */
  again: boolean;
  /** The last fetch failed: the heartbeat tick tries again. */
  failed: boolean;
  /** An agent is typing: when to send the automatic "stopped". One timer per chat, only while typing. */
  typingOff: NodeJS.Timeout | undefined;
}

export interface HubOptions {
  heartbeatMs: number;
  retryMs: number;
  typingTimeoutMs: number;
}

/**
 * The SSE streams of this replica, by chat (docs/decisions/0088). Live and replay are one path: a stream starts after
 * the sequence number it already has (Last-Event-ID), and every change the bus reports for a chat with open streams
 * makes one `ListVisitorEvents(after = the lowest sequence number its streams have)` call (coalesced: changes
 * arriving during a call cause one more), whose events are written to each stream that lacks them, in order. So
 * nothing is lost or written twice, whichever replica or order the bus delivers in. A stream costs its socket, this
 * small object and a Set entry: the heartbeat is one timer for all streams.
 */
export class RealtimeHub {
  private readonly chats = new Map<string, ChatStreams>();
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly backends: Backends,
    private readonly options: HubOptions,
    private readonly logger: Logger,
  ) {
    this.heartbeat = setInterval(() => this.tick(), options.heartbeatMs);
    this.heartbeat.unref();
  }

  get streamCount(): number {
    let count = 0;
    for (const chat of this.chats.values()) count += chat.streams.size;
    return count;
  }

  /** Starts an SSE response (headers, `retry:`) for a chat the visitor may read, then replays what it lacks. */
  open(
    chatId: string,
    visitor: VisitorIdentityOfSession,
    view: VisitorView,
    response: ServerResponse,
    afterSeq: number,
    headers: Record<string, string>,
  ): void {
    response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      connection: 'keep-alive',
      // nginx (the chart's ingress) would buffer the stream otherwise.
      'x-accel-buffering': 'no',
    });
    response.write(`retry: ${this.options.retryMs}\n\n`);
    if (this.closed) {
      response.end();
      return;
    }
    let chat = this.chats.get(chatId);
    if (!chat) {
      chat = { streams: new Set(), view, fetching: false, again: false, failed: false, typingOff: undefined };
      this.chats.set(chatId, chat);
    }
    chat.view = view;
    const stream: Stream = { response, visitor, lastSent: afterSeq };
    chat.streams.add(stream);
    response.once('close', () => this.remove(chatId, stream));
    void this.pump(chatId);
  }

  /** The bus reported a visitor-visible change of a chat: streams of it on this replica catch up. */
  changed(chatId: string): void {
    if (this.chats.has(chatId)) void this.pump(chatId);
  }

  /** Someone in the dashboard is typing: relayed as is (no id: typing is not replayed), off by itself after a while. */
  typing(chatId: string, notice: TypingNotice): void {
    const chat = this.chats.get(chatId);
    if (!chat) return;
    clearTimeout(chat.typingOff);
    chat.typingOff = undefined;
    this.writeAll(chat, typingData(notice));
    if (notice.typing) {
      chat.typingOff = setTimeout(() => {
        chat.typingOff = undefined;
        this.writeAll(chat, typingData({ ...notice, typing: false }));
      }, this.options.typingTimeoutMs);
      chat.typingOff.unref();
    }
  }

  /** Whether this replica has a stream of the integration. */
  hasChannel(channelId: string): boolean {
    for (const chat of this.chats.values()) if (this.channelOf(chat) === channelId) return true;
    return false;
  }

  /**
   * Ends every stream of an integration (disabled or deleted): a reconnect is then refused like any request of it.
   * A scan of this replica's chats: channel changes are rare, and a per-channel index would cost every stream.
   */
  endChannel(channelId: string): number {
    let ended = 0;
    for (const chat of this.chats.values()) {
      if (this.channelOf(chat) !== channelId) continue;
      for (const stream of chat.streams) stream.response.end();
      ended += chat.streams.size;
    }
    return ended;
  }

  /**
   * Ends every stream of a contact (erased: decision 0173); its sessions are gone, so a reconnect is refused. A scan of
   * this replica's chats, like endChannel: erasures are rare.
   */
  endContact(contactId: string): number {
    return this.endWhere((visitor) => visitor.contactId === contactId);
  }

  /** Ends every stream of a deprovisioned org (decision 0221): its sessions are gone, so a reconnect is refused. */
  endOrg(orgId: string): number {
    return this.endWhere((visitor) => visitor.orgId === orgId);
  }

  private endWhere(matches: (visitor: VisitorIdentityOfSession) => boolean): number {
    let ended = 0;
    for (const chat of this.chats.values()) {
      for (const stream of chat.streams) {
        if (!matches(stream.visitor)) continue;
        stream.response.end();
        ended += 1;
      }
    }
    return ended;
  }

  /** Ends every stream (SIGTERM): clients reconnect to another replica with their Last-Event-ID. */
  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const chat of this.chats.values()) {
      clearTimeout(chat.typingOff);
      for (const stream of chat.streams) stream.response.end();
    }
    this.chats.clear();
  }

  /** A chat belongs to one integration: the one its streams' visitors came through. */
  private channelOf(chat: ChatStreams): string | undefined {
    const [first] = chat.streams;
    return first?.visitor.channelId;
  }

  private remove(chatId: string, stream: Stream): void {
    const chat = this.chats.get(chatId);
    if (!chat) return;
    chat.streams.delete(stream);
    if (!chat.streams.size) {
      clearTimeout(chat.typingOff);
      this.chats.delete(chatId);
    }
  }

  private tick(): void {
    for (const [chatId, chat] of this.chats) {
      for (const stream of chat.streams) stream.response.write(':\n\n');
      if (chat.failed) void this.pump(chatId);
    }
  }

  private writeAll(chat: ChatStreams, frame: string): void {
    for (const stream of chat.streams) stream.response.write(frame);
  }

  private async pump(chatId: string): Promise<void> {
    const chat = this.chats.get(chatId);
    if (!chat) return;
    if (chat.fetching) {
      chat.again = true;
      return;
    }
    chat.fetching = true;
    chat.failed = false;
    try {
      do {
        chat.again = false;
        const [first] = chat.streams;
        if (!first) return;
        let after = first.lastSent;
        for (const stream of chat.streams) after = Math.min(after, stream.lastSent);
        const page = await this.backends.listVisitorEvents(first.visitor, chatId, after);
        this.write(chat, page.data);
        await this.reportSent(chatId, first.visitor, page.data);
        if (page.hasNext) chat.again = true;
      } while (chat.again && chat.streams.size);
    } catch (error) {
      if (error instanceof NotFound) {
        // The chat is no longer this visitor's (it moved to an identified contact): its streams end.
        const [first] = chat.streams;
        for (const stream of chat.streams)
          if (stream.visitor.contactId === first?.visitor.contactId) stream.response.end();
      } else {
        chat.failed = true;
        this.logger.warn({ err: error, chatId }, 'visitor events not fetched; retried on the next heartbeat');
      }
    } finally {
      chat.fetching = false;
    }
  }

  private write(chat: ChatStreams, events: VisitorEvent[]): void {
    for (const event of events) {
      let frame: string | undefined;
      for (const stream of chat.streams) {
        if (stream.lastSent >= event.seq) continue;
        frame ??= chatEventData(event, chat.view);
        stream.response.write(frame);
        stream.lastSent = event.seq;
      }
    }
  }

  /** An agent's message written to a visitor's stream is SENT (the inbox never moves a status back). */
  private async reportSent(chatId: string, visitor: VisitorIdentityOfSession, events: VisitorEvent[]): Promise<void> {
    const queued = events
      .map((event) => event.message)
      .filter(
        (message) =>
          message?.direction === MessageDirection.OUTBOUND && message.deliveryStatus === DeliveryStatus.QUEUED,
      )
      .map((message) => message?._id ?? '');
    if (!queued.length) return;
    try {
      await this.backends.updateDeliveryStatus(visitor, chatId, [...new Set(queued)], DeliveryStatus.SENT);
    } catch (error) {
      this.logger.warn({ err: error, chatId }, 'SENT not recorded');
    }
  }
}
