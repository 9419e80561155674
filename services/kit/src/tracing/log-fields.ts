import { isSpanContextValid, trace } from '@opentelemetry/api';
import { currentRequestId } from './request-id';

export interface RequestLogFields {
  trace_id?: string;
  span_id?: string;
  request_id?: string;
}

/**
 * The fields every log line gets (the logger's pino `mixin`): the active span's trace and span ids, when tracing is on
 * and a span is active, and the `x-request-id` of the request being served.
 */
export function logFields(): RequestLogFields {
  const fields: RequestLogFields = {};
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span)) {
    fields.trace_id = span.traceId;
    fields.span_id = span.spanId;
  }
  const requestId = currentRequestId();
  if (requestId) fields.request_id = requestId;
  return fields;
}
