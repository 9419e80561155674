import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Link,
} from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { REQUEST_ID_HEADER, currentRequestId, outsideRequest, runWithRequestId } from './request-id';

/**
 * A request's context as it travels with work that outlives the request (an event in the outbox, a queued flow run):
 * the W3C trace context fields (`traceparent`, `tracestate`; only when tracing is on) and `x-request-id`.
 */
export type RequestContext = Record<string, string>;

const tracer = trace.getTracer('@svc/kit');

/** The current request's context, to be stored with what outlives it. */
export function captureRequestContext(): RequestContext {
  const carrier: RequestContext = {};
  propagation.inject(context.active(), carrier);
  const requestId = currentRequestId();
  if (requestId) carrier[REQUEST_ID_HEADER] = requestId;
  return carrier;
}

export interface ContinuationSpan {
  name: string;
  kind?: SpanKind;
  attributes?: Attributes;
}

function spanContextOf(parent: Context) {
  const span = trace.getSpanContext(parent);
  return span && isSpanContextValid(span) ? span : undefined;
}

/**
 * Runs `work` as the continuation of the request(s) whose context was captured: in a span that is the child of the
 * request's span (one request) or linked to each (a batch of several), with their request id when they share one.
 * The active context is never the parent: where it has a span (kafkajs's, for the delivery, which carries only the
 * outbox relay's context), that span is linked instead, so the work joins the request's trace, not the relay's.
 */
export async function continueRequests<T>(
  captured: RequestContext[],
  span: ContinuationSpan,
  work: () => Promise<T>,
): Promise<T> {
  const parents = captured.map((carrier) => propagation.extract(ROOT_CONTEXT, carrier));
  const parent = parents.length === 1 && parents[0] ? parents[0] : ROOT_CONTEXT;
  const links: Link[] = [];
  if (parents.length > 1) {
    for (const candidate of parents) {
      const linked = spanContextOf(candidate);
      if (linked) links.push({ context: linked });
    }
  }
  const delivery = spanContextOf(context.active());
  if (delivery) links.push({ context: delivery });
  const requestIds = new Set(captured.map((carrier) => carrier[REQUEST_ID_HEADER]));
  const [requestId] = requestIds.size === 1 ? requestIds : [undefined];
  return runWithRequestId(requestId, () =>
    tracer.startActiveSpan(
      span.name,
      { kind: span.kind ?? SpanKind.INTERNAL, links, ...(span.attributes ? { attributes: span.attributes } : {}) },
      parent,
      async (active) => {
        try {
          return await work();
        } catch (error) {
          active.recordException(error instanceof Error ? error : String(error));
          active.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          active.end();
        }
      },
    ),
  );
}

/**
 * Runs a background pass that serves many requests (the outbox relay, the flow runner's polling) outside whichever
 * request happened to wake it: no request id, and no spans of its own (its database polling is not a request).
 */
export function detached<T>(work: () => T): T {
  return context.with(suppressTracing(ROOT_CONTEXT), () => outsideRequest(work));
}
