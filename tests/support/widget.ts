import type { Metadata } from '@grpc/grpc-js';
import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { SignJWT } from 'jose';
import { ApiScope, apiKeyPrincipal, grpcClient, unary } from '@svc/kit';
import {
  ChannelsServiceClient,
  type WebIntegration,
  type WebIntegrationInput,
  type WebIntegrationWithSecret,
} from '@svc/proto/channels/v1';
import type { StackHarness, TestOrg } from './stack-harness';

export const SITE = 'https://shop.example.com';

export interface WebResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/** A handshake's answer (docs/widget-api.md). */
export interface SessionBody {
  sessionToken: string;
  sessionExpiresAt: string;
  refreshToken: string;
  identified: boolean;
  chat: { _id: string; status: string; unreadCount: number; lastEventSeq: number };
  messages: { data: { _id: string; text: string; direction: string; deliveryStatus: string }[]; hasNext: boolean };
  error?: { code: string; message: string; field?: string; reason?: string };
}

/**
 * Web integrations and widget-api calls for the end-to-end tests. Integrations are managed through the channels
 * service as the gateway would call it for an API key with CHANNELS_MANAGE.
 */
export class WidgetFixtures {
  constructor(
    readonly harness: StackHarness,
    readonly org: TestOrg,
  ) {}

  private async channels<R>(call: (client: ChannelsServiceClient, metadata: Promise<Metadata>) => Promise<R>) {
    const client = grpcClient(ChannelsServiceClient, `127.0.0.1:${this.harness.stack.channels.grpcPort}`);
    try {
      const principal = apiKeyPrincipal(this.org.id, [ApiScope.CHANNELS_MANAGE]);
      return await call(client, this.harness.stack.gatewaySigner.metadata(principal, 'channels'));
    } finally {
      client.close();
    }
  }

  async integration(input: WebIntegrationInput = {}): Promise<{ integration: WebIntegration; secret: string }> {
    const created: WebIntegrationWithSecret = await this.channels((client, metadata) =>
      unary(
        client.createWebIntegration.bind(client),
        { input: { name: 'Shop', allowedOrigins: { origins: [SITE] }, ...input } },
        metadata,
      ),
    );
    if (!created.integration) throw new Error('no integration created');
    return { integration: created.integration, secret: created.identitySecret };
  }

  update(id: string, input: WebIntegrationInput): Promise<WebIntegration> {
    return this.channels((client, metadata) =>
      unary(client.updateWebIntegration.bind(client), { id, input }, metadata),
    );
  }

  async rotate(id: string): Promise<string> {
    const rotated = await this.channels((client, metadata) =>
      unary(client.rotateWebIntegrationSecret.bind(client), { id }, metadata),
    );
    return rotated.identitySecret;
  }
}

/** A widget-api call on the stack's port, as a page at `origin` makes it (no origin: a server). */
export async function web<T = Record<string, unknown>>(
  baseUrl: string,
  path: string,
  init: { method?: string; body?: unknown; token?: string; origin?: string; headers?: Record<string, string> } = {},
): Promise<WebResponse<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.origin) headers.origin = init.origin;
  const response = await fetch(`${baseUrl}/api/web${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as T };
}

/** HS256 jwt a site's backend would sign for its user. */
export function siteJwt(
  secret: string,
  claims: Record<string, unknown>,
  options: { sub?: string; expiresIn?: number; issuedAt?: number } = {},
): Promise<string> {
  const issuedAt = options.issuedAt ?? Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + (options.expiresIn ?? 300));
  if (options.sub !== undefined) jwt.setSubject(options.sub);
  return jwt.sign(new TextEncoder().encode(secret));
}

export function userHash(secret: string, userId: string): string {
  return createHmac('sha256', secret).update(userId).digest('hex');
}

/** `alg: none`: a token anyone can write. */
export function unsignedJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** Google's side for the tests: an RS256 key whose JWKS a local HTTP server publishes. */
export class FakeGoogle {
  private readonly privateKey: KeyObject;
  private readonly publicJwk: Record<string, unknown>;
  private server: Server | undefined;
  readonly kid = 'test-google-key';

  constructor() {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.publicJwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: this.kid, alg: 'RS256', use: 'sig' };
  }

  async start(): Promise<string> {
    this.server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [this.publicJwk] }));
    }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => this.server?.once('listening', () => resolve()));
    const address = this.server.address();
    if (!address || typeof address !== 'object') throw new Error('no address');
    return `http://127.0.0.1:${address.port}/certs`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** An ID token as Google signs it; `overrides` change claims (issuer, audience, expiry, …). */
  idToken(
    clientId: string,
    claims: Record<string, unknown> = {},
    options: { issuer?: string; expiresIn?: number; notBefore?: number; key?: KeyObject } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: this.kid })
      .setIssuer(options.issuer ?? 'https://accounts.google.com')
      .setAudience(clientId)
      .setSubject(typeof claims.sub === 'string' ? claims.sub : '1234567890')
      .setIssuedAt(now)
      .setExpirationTime(now + (options.expiresIn ?? 600));
    if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
    return jwt.sign(options.key ?? this.privateKey);
  }
}

/** One SSE event as the stream wrote it. */
export interface StreamEvent {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/**
 * An SSE stream read with fetch (the widget's way: the session token in the Authorization header). Parses frames as
 * the EventSource spec does (event/id/data lines, blank line ends a frame, `:` comments skipped).
 */
export class SseReader {
  readonly events: StreamEvent[] = [];
  status = 0;
  headers: Headers | undefined;
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();
  ended = false;

  static async open(
    baseUrl: string,
    chatId: string,
    token: string,
    options: { lastEventId?: number; origin?: string } = {},
  ): Promise<SseReader> {
    const reader = new SseReader();
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
    if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
    if (options.origin) headers.origin = options.origin;
    const response = await fetch(`${baseUrl}/api/web/realtime/${chatId}`, { headers, signal: reader.abort.signal });
    reader.status = response.status;
    reader.headers = response.headers;
    if (response.ok && response.body) reader.done = reader.read(response.body);
    else reader.ended = true;
    return reader;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          this.parse(frame);
        }
      }
    } catch {
      // aborted
    }
    this.ended = true;
  }

  private parse(frame: string): void {
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of frame.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (!data.length) return;
    this.events.push({ id, event, data: JSON.parse(data.join('\n')) as Record<string, unknown> });
  }

  /** Events of the chat log (with an id), as [id, type]. */
  get logged(): [number, string][] {
    return this.events.filter((e) => e.id !== undefined).map((e) => [Number(e.id), e.event]);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}
