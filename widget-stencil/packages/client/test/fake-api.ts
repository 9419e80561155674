import type { TokenStorage, VisitorMessage, VisitorSession } from '../src/index.js';

/** One request the client made. */
export interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

export type Route = (request: Recorded) => Response | Promise<Response>;

/** A stream the test writes to: `push` SSE text, `close` ends it. */
export class FakeStream {
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  readonly body = new ReadableStream<Uint8Array>({
    start: (controller) => {
      this.controller = controller;
    },
  });
  closed = false;

  push(text: string): void {
    if (!this.closed) this.controller?.enqueue(new TextEncoder().encode(text));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.controller?.close();
  }
}

/**
 * widget-api as the client sees it, for unit tests: routes by "METHOD path" (path without `/api/web` and query),
 * every request recorded in order.
 */
export class FakeApi {
  readonly requests: Recorded[] = [];
  readonly routes = new Map<string, Route>();
  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const text = typeof init?.body === 'string' ? init.body : undefined;
    const path = url.pathname.replace(/^\/api\/web/, '') + url.search;
    const request: Recorded = {
      method: init?.method ?? 'GET',
      path,
      headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
    };
    this.requests.push(request);
    const route =
      this.routes.get(`${request.method} ${url.pathname.replace(/^\/api\/web/, '')}`) ??
      this.routes.get(`${request.method} ${path}`);
    if (!route) return json(404, { error: { code: 'NOT_FOUND', message: `no route ${request.method} ${path}` } });
    return route(request);
  };

  on(route: string, answer: Route): this {
    this.routes.set(route, answer);
    return this;
  }

  paths(): string[] {
    return this.requests.map((request) => `${request.method} ${request.path}`);
  }
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

let sessions = 0;

/** A handshake answer for chat `chatId`. */
export function sessionAnswer(chatId = 'chat-1', options: Partial<VisitorSession> = {}): VisitorSession {
  sessions++;
  return {
    sessionToken: `token-${sessions}`,
    sessionExpiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
    refreshToken: `wrt_${sessions}`,
    identified: false,
    chat: { _id: chatId, status: 'OPEN', unreadCount: 0, lastEventSeq: 0 },
    messages: { data: [], hasNext: false, hasPrevious: false },
    ...options,
  };
}

export function agentMessage(id: string, seconds: number, text = id): VisitorMessage {
  return {
    _id: id,
    chatId: 'chat-1',
    direction: 'OUTBOUND',
    author: { type: 'MEMBER', displayName: 'Ann' },
    type: 'TEXT',
    text,
    media: [],
    buttons: [],
    deliveryStatus: 'SENT',
    createdAt: new Date(Date.UTC(2026, 10, 23, 10, 0, seconds)).toISOString(),
    deleted: false,
  };
}

export function sseMessage(seq: number, message: VisitorMessage, type = 'message.created'): string {
  const data = { seq, chatId: message.chatId, occurredAt: message.createdAt, message };
  return `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A storage that records every write. */
export function recordingStorage(): TokenStorage & { writes: string[]; values: Map<string, string> } {
  const values = new Map<string, string>();
  const writes: string[] = [];
  return {
    values,
    writes,
    get: (key) => values.get(key) ?? null,
    set: (key, value) => {
      writes.push(`set ${key}`);
      values.set(key, value);
    },
    remove: (key) => {
      writes.push(`remove ${key}`);
      values.delete(key);
    },
  };
}

/** Poll until `check` holds (no fixed sleeps). */
export async function eventually<T>(
  check: () => T | undefined | false,
  what = 'condition',
  deadlineMs = 5_000,
): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const result = check();
    if (result !== undefined && result !== false) return result;
    if (Date.now() > until) throw new Error(`${what} not reached within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
