import getRawBody from 'raw-body';
import {
  Counter,
  Histogram,
  REQUEST_ID_HEADER,
  acceptRequestId,
  metricsRegistry,
  runWithRequestId,
  sendJson,
  type RawRoute,
} from '@svc/kit';
import { READ_CAP_BYTES, type InboundPipeline } from '../domain/pipeline';

const requestsTotal = new Counter({
  name: 'svc_webhook_inbound_requests_total',
  help: 'Requests to POST /webhooks/in/:connectionId, by outcome (spec 7.2) and HTTP status.',
  labelNames: ['outcome', 'status'] as const,
  registers: [metricsRegistry],
});

const requestSeconds = new Histogram({
  name: 'svc_webhook_inbound_request_seconds',
  help: 'Time from the request to its answer (body read, verification, commit), POST /webhooks/in/:connectionId.',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [metricsRegistry],
});

function isTooLarge(error: unknown): boolean {
  return (error as { type?: string }).type === 'entity.too.large';
}

/**
 * `POST /webhooks/in/:connectionId`, served on node:http ahead of Koa (kit `RawRoute`). The raw body is read up to a
 * hard cap above the 100 KB limit (decision 0044: a declared Content-Length past it is refused before reading, a
 * longer chunked body stops being read there), and the signature is verified on those raw bytes; nothing parses the
 * body before the pipeline does.
 */
export function ingressRoute(pipeline: () => InboundPipeline): RawRoute {
  return {
    method: 'POST',
    path: /^\/webhooks\/in\/([^/]+)\/?$/,
    handle: async (request, response, [connectionId = '']) => {
      const stopTimer = requestSeconds.startTimer();
      let body: Buffer | undefined;
      // The caller's x-request-id, or a new one: answered, kept in the request's history, carried by its event to the
      // flow it starts, and on every log line meanwhile (docs/decisions/0069).
      const requestId = acceptRequestId(request.headers[REQUEST_ID_HEADER]);
      request.headers[REQUEST_ID_HEADER] = requestId;
      const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
      try {
        body = await getRawBody(request, { limit: READ_CAP_BYTES, length: request.headers['content-length'] });
      } catch (error) {
        if (!isTooLarge(error)) throw error;
        body = undefined;
        // The rest of an oversized body is never read: close the connection after answering.
        headers.connection = 'close';
      }
      const answer = await runWithRequestId(requestId, () =>
        pipeline().handle({ connectionId, headers: request.headers, body }),
      );
      sendJson(response, answer.status, answer.body, { ...answer.headers, ...headers });
      requestsTotal.inc({ outcome: answer.outcome, status: String(answer.status) });
      stopTimer();
    },
  };
}
