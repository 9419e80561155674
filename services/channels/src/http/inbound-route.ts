import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import {
  Counter,
  REQUEST_ID_HEADER,
  acceptRequestId,
  metricsRegistry,
  runWithRequestId,
  type RawRoute,
} from '@svc/kit';
import type { InboundRequest } from '../platforms/adapter';
import { MAX_INBOUND_BODY_BYTES, type InboundAnswer } from './inbound-webhooks';

const requestsTotal = new Counter({
  name: 'svc_channels_inbound_requests_total',
  help: 'Requests to /channels/in/:channelId and /channels/in/app/:kind, by channel kind (none when unknown) and outcome.',
  labelNames: ['kind', 'outcome'] as const,
  registers: [metricsRegistry],
});

function headersOf(request: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers))
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

function queryOf(request: IncomingMessage): Record<string, string | undefined> {
  const url = new URL(request.url ?? '/', 'http://channels');
  return Object.fromEntries(url.searchParams);
}

function isTooLarge(error: unknown): boolean {
  return (error as { type?: string }).type === 'entity.too.large';
}

/** What answers the requests of one inbound path, by the path's one parameter (a channel id, an app's kind). */
export interface InboundReceiver {
  handshake(key: string, request: InboundRequest): Promise<InboundAnswer>;
  receive(key: string, request: Omit<InboundRequest, 'rawBody'> & { rawBody?: Buffer }): Promise<InboundAnswer>;
}

/**
 * `POST` and `GET /channels/in/:channelId` on node:http ahead of Koa (kit `RawRoute`), so the channels deployable and
 * the embedded stack's shared port serve it alike. The body is read raw, bounded (a declared Content-Length past the
 * bound is refused before reading), and handed to the receiver unparsed.
 */
export function inboundRoute(receiver: () => InboundReceiver): RawRoute {
  return rawInboundRoute(/^\/channels\/in\/([^/]+)\/?$/, receiver);
}

/** `POST` and `GET /channels/in/app/:kind`: the installation app's webhooks (decision 0146), read alike. */
export function appInboundRoute(receiver: () => InboundReceiver): RawRoute {
  return rawInboundRoute(/^\/channels\/in\/app\/([^/]+)\/?$/, receiver);
}

function rawInboundRoute(path: RegExp, receiver: () => InboundReceiver): RawRoute {
  return {
    method: '*',
    path,
    handle: async (request, response, [key = '']) => {
      const requestId = acceptRequestId(request.headers[REQUEST_ID_HEADER]);
      request.headers[REQUEST_ID_HEADER] = requestId;
      const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
      const base: Omit<InboundRequest, 'rawBody' | 'method'> = { headers: headersOf(request), query: queryOf(request) };
      const answer = await runWithRequestId(requestId, async (): Promise<InboundAnswer> => {
        if (request.method === 'GET')
          return receiver().handshake(key, { ...base, method: 'GET', rawBody: Buffer.alloc(0) });
        if (request.method !== 'POST') {
          headers.allow = 'GET, POST';
          return {
            status: 405,
            body: '{"message":"Method Not Allowed"}',
            contentType: 'application/json',
            outcome: 'method_not_allowed',
          };
        }
        let rawBody: Buffer | undefined;
        try {
          rawBody = await getRawBody(request, {
            limit: MAX_INBOUND_BODY_BYTES,
            length: request.headers['content-length'],
          });
        } catch (error) {
          if (!isTooLarge(error)) throw error;
          // The rest of an oversized body is never read: close the connection after answering.
          headers.connection = 'close';
        }
        return receiver().receive(key, { ...base, method: 'POST', rawBody });
      });
      const payload = Buffer.from(answer.body);
      response.writeHead(answer.status, {
        ...headers,
        'content-type': `${answer.contentType}; charset=utf-8`,
        'content-length': String(payload.length),
      });
      response.end(payload);
      requestsTotal.inc({ kind: answer.kind ?? 'none', outcome: answer.outcome });
    },
  };
}
