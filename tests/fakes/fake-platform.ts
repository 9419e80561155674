import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake platform received, as it arrived. */
export interface RecordedRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON (or as a form), when it was one. */
  json: unknown;
  at: number;
}

export interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow platform; longer than the adapter's timeout is a timeout). */
  delayMs?: number;
}

type Handler = (request: RecordedRequest) => FakeAnswer | Promise<FakeAnswer>;

interface Scripted {
  matches: (request: RecordedRequest) => boolean;
  answer: FakeAnswer;
  remaining: number;
}

/**
 * The common part of the local fake platforms (`tests/fakes/<kind>.ts`): a real HTTP server on 127.0.0.1 that records
 * every request, answers through routes each fake defines in the platform's own shapes, and can be told to answer the
 * next matching requests otherwise (rate limits, 5xx, permanent errors, slowness). Fakes stand in for the platforms'
 * servers only; what they receive is what the real platform would.
 */
export abstract class FakePlatform {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: { method: string; pattern: RegExp; handler: Handler }[] = [];
  private readonly scripted: Scripted[] = [];
  private readonly slow: { matches: (request: RecordedRequest) => boolean; delayMs: number }[] = [];
  private server: http.Server | undefined;
  url = '';

  protected route(method: string, pattern: RegExp, handler: Handler): void {
    this.routes.push({ method, pattern, handler });
  }

  /** The next `times` requests matching `matches` get `answer` instead of the route's. */
  failNext(matches: (request: RecordedRequest) => boolean, answer: FakeAnswer, times = 1): void {
    this.scripted.push({ matches, answer, remaining: times });
  }

  /** Requests matching `matches` get their usual answer `delayMs` late from now on (a platform under load). */
  slowDown(matches: (request: RecordedRequest) => boolean, delayMs: number): void {
    this.slow.push({ matches, delayMs });
  }

  /** Requests whose path matches, in arrival order. */
  received(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = undefined;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://fake');
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json: parseBody(body, req.headers['content-type']),
      at: Date.now(),
    };
    this.requests.push(request);
    const answer = await this.answerFor(request);
    const delayMs = answer.delayMs ?? this.slow.find((s) => s.matches(request))?.delayMs;
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (res.destroyed) return;
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(text);
  }

  private async answerFor(request: RecordedRequest): Promise<FakeAnswer> {
    const script = this.scripted.find((s) => s.remaining > 0 && s.matches(request));
    if (script) {
      script.remaining -= 1;
      return script.answer;
    }
    const route = this.routes.find((r) => r.method === request.method && r.pattern.test(request.path));
    if (!route) return { status: 404, body: { error: `fake: no route for ${request.method} ${request.path}` } };
    try {
      return await route.handler(request);
    } catch (error) {
      return { status: 500, body: { error: `fake: ${(error as Error).message}` } };
    }
  }
}

function parseBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return undefined;
  const text = body.toString('utf8');
  if (contentType?.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Posts a webhook to our inbound route as the platform would; answers the status and body text. */
export async function deliverWebhook(
  url: string,
  body: string | Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
  return { status: response.status, text: await response.text() };
}
