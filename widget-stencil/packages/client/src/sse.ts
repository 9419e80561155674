/** One dispatched event of an event stream. */
export interface SseEvent {
  /** `event:` (default `message`). */
  type: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The stream's last event id when this event was dispatched (it carries over from earlier `id:` fields). */
  lastEventId: string;
}

export interface SseHandlers {
  onEvent(event: SseEvent): void;
  /** A valid `retry:` field: the reconnection delay the server asks for, in milliseconds. */
  onRetry?(milliseconds: number): void;
  /** A comment line (`:` …), e.g. a heartbeat; the text after the colon. */
  onComment?(text: string): void;
}

/**
 * The event-stream parser of the HTML standard (§9.2.6 "Interpreting an event stream"), fed decoded text in chunks of
 * any size: lines end with CRLF, LF or CR (a CR at a chunk's end and an LF at the next one's start are one line
 * end), a leading BOM is dropped, `data:` lines accumulate, an event with no data is not dispatched, `id:` with a NUL
 * is ignored, `retry:` counts only when it is all ASCII digits, unknown fields are ignored.
 */
export class SseParser {
  private buffer = '';
  private started = false;
  private pendingCr = false;
  private eventType = '';
  private data = '';
  private hasData = false;
  private lastEventId = '';

  constructor(private readonly handlers: SseHandlers) {}

  /** The last event id the stream set (what a reconnect would send as `Last-Event-ID`). */
  get lastId(): string {
    return this.lastEventId;
  }

  /** Parse one chunk; dispatches every event completed by it. */
  feed(chunk: string): void {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const code = this.buffer.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      this.line(this.buffer.slice(start, i));
      if (code === 13) {
        if (i + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
  }

  /** The stream ended: an event without its blank line is discarded, as the standard says. */
  end(): void {
    this.buffer = '';
    this.pendingCr = false;
    this.data = '';
    this.hasData = false;
    this.eventType = '';
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.charCodeAt(0) === 58 /* : */) {
      this.handlers.onComment?.(line.slice(1).replace(/^ /, ''));
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data += this.hasData ? `\n${value}` : value;
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\u0000')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.handlers.onRetry?.(Number(value));
        break;
    }
  }

  private dispatch(): void {
    if (!this.hasData) {
      this.eventType = '';
      return;
    }
    const event: SseEvent = { type: this.eventType || 'message', data: this.data, lastEventId: this.lastEventId };
    this.eventType = '';
    this.data = '';
    this.hasData = false;
    this.handlers.onEvent(event);
  }
}
