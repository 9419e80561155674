import { createHmac } from 'node:crypto';
import type { AdapterOptions } from '../registry';
import { PlatformCallError } from '../adapter';
import { classifyGraphError, classifyNetworkFailure, type GraphErrorBody } from './errors';

export interface GraphCall {
  method?: 'GET' | 'POST' | 'DELETE';
  /** Sent as `Authorization: Bearer` (never in the URL, so it stays out of access logs). */
  accessToken?: string;
  /**
   * When given, every call carries `appsecret_proof` = HMAC-SHA256(app secret, access token): the platform refuses a
   * proof that does not match, which is how connect checks the app secret too
   * (https://developers.facebook.com/docs/graph-api/securing-requests/).
   */
  appSecret?: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
}

/** A small Graph API client on a configurable base URL (`https://graph.facebook.com/v23.0` or a fake). */
export class GraphClient {
  constructor(private readonly options: AdapterOptions) {}

  url(path: string, query: Record<string, string | undefined> = {}): string {
    const url = new URL(`${this.options.baseUrl.replace(/\/$/, '')}/${path.replace(/^\//, '')}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
    return url.toString();
  }

  /** The JSON answer of a successful call; PlatformCallError (classified) otherwise. */
  async call<T>(path: string, call: GraphCall = {}): Promise<T> {
    const query = { ...call.query };
    if (call.appSecret && call.accessToken) query.appsecret_proof = appSecretProof(call.appSecret, call.accessToken);
    const headers: Record<string, string> = {};
    if (call.accessToken) headers.authorization = `Bearer ${call.accessToken}`;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.fetch(this.url(path, query), {
      method: call.method ?? 'GET',
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    const json = parseJson(response.bytes.toString('utf8'));
    if (!response.ok) {
      throw new PlatformCallError(classifyGraphError(response.status, (json as { error?: GraphErrorBody })?.error));
    }
    return json as T;
  }

  /** Downloads bytes (a media URL the platform gave), with the token when the platform wants it. */
  async download(url: string, accessToken?: string): Promise<{ bytes: Buffer; mimeType?: string }> {
    const response = await this.fetch(url, {
      method: 'GET',
      headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
    });
    if (!response.ok) {
      const json = parseJson(response.bytes.toString('utf8')) as { error?: GraphErrorBody } | undefined;
      throw new PlatformCallError(classifyGraphError(response.status, json?.error));
    }
    return { bytes: response.bytes, mimeType: response.contentType };
  }

  /** One HTTP exchange, the body read under the same timeout; no answer at all is a classified PlatformCallError. */
  private async fetch(url: string, init: RequestInit): Promise<FetchedAnswer> {
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs) });
      const bytes = Buffer.from(await response.arrayBuffer());
      return {
        ok: response.ok,
        status: response.status,
        bytes,
        contentType: response.headers.get('content-type') ?? undefined,
      };
    } catch (error) {
      throw new PlatformCallError(classifyNetworkFailure(error));
    }
  }
}

interface FetchedAnswer {
  ok: boolean;
  status: number;
  bytes: Buffer;
  contentType?: string;
}

export function appSecretProof(appSecret: string, accessToken: string): string {
  return createHmac('sha256', appSecret).update(accessToken).digest('hex');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
