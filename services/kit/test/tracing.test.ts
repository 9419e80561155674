import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { ROOT_CONTEXT, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Envelope } from '@svc/proto/events/v1';
import {
  OutboxEvent,
  consumeEvents,
  enqueueEvents,
  loadConfig,
  logFields,
  runWithRequestId,
  tracingConfigSchema,
  tracingEnabled,
  type NewEvent,
} from '../src';
import { memoryDataSource } from './memory-data-source';

const event: NewEvent = {
  topic: 'svc.webhooks.received.v1',
  key: 'k',
  type: 'webhook.received',
  orgId: 'org',
  payload: {},
};

describe('kit tracing', () => {
  describe('tracingEnabled: off unless the OTEL_* variables ask for it', () => {
    const enabled = (env: Record<string, string>) => tracingEnabled(loadConfig(tracingConfigSchema, env));
    it('is off without an endpoint or exporter, and when disabled or set to none', () => {
      expect(enabled({})).to.equal(false);
      expect(enabled({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).to.equal(false);
      expect(enabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).to.equal(false);
      expect(enabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).to.equal(false);
    });
    it('is on with an OTLP endpoint or a traces exporter', () => {
      expect(enabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).to.equal(true);
      expect(enabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).to.equal(true);
      expect(enabled({ OTEL_TRACES_EXPORTER: 'console' })).to.equal(true);
    });
    it('refuses a malformed endpoint, naming it', () => {
      expect(() => loadConfig(tracingConfigSchema, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).to.throw(
        /OTEL_EXPORTER_OTLP_ENDPOINT/,
      );
    });
  });

  it('log fields carry the request id with tracing off', () => {
    expect(logFields()).to.deep.equal({});
    expect(runWithRequestId('req-off', () => logFields())).to.deep.equal({ request_id: 'req-off' });
  });

  describe('events carry the request context to their consumers (InMemorySpanExporter)', () => {
    const exporter = new InMemorySpanExporter();
    const tracer = () => trace.getTracer('test');
    let dataSource: DataSource;
    const lines: Record<string, string>[] = [];
    const logger = pino(
      { mixin: logFields },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, string>);
          done();
        },
      }),
    );

    before(async () => {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
      dataSource = await memoryDataSource([OutboxEvent]);
    });

    after(async () => {
      trace.disable();
      propagation.disable();
      context.disable();
      await dataSource.destroy();
    });

    /** Records an event inside a request span with an x-request-id, as a service handler would. */
    const recordInRequest = (requestId: string) =>
      runWithRequestId(requestId, () =>
        tracer().startActiveSpan('request', async (span) => {
          const [envelope] = await enqueueEvents(dataSource.manager, [event]);
          span.end();
          const row = await dataSource.getRepository(OutboxEvent).findOneByOrFail({ id: envelope?.id ?? '' });
          return { span: span.spanContext(), stored: Envelope.decode(Buffer.from(row.payload, 'base64')) };
        }),
      );

    it('the envelope carries the traceparent and x-request-id; its consumer span is the child of the request span', async () => {
      const { span, stored } = await recordInRequest('req-1');
      expect(stored.requestContext.traceparent).to.contain(span.traceId);
      expect(stored.requestContext['x-request-id']).to.equal('req-1');
      // The consumer runs later, in another context (the relay's, or a delivery span of its own).
      const delivery = tracer().startSpan('delivery', {}, ROOT_CONTEXT);
      await context.with(trace.setSpan(ROOT_CONTEXT, delivery), () =>
        consumeEvents([stored], { topic: event.topic, groupId: 'g' }, async () => logger.info('handled')),
      );
      delivery.end();
      const consumer = exporter.getFinishedSpans().find((s) => s.name === `process ${event.topic}`);
      expect(consumer?.spanContext().traceId).to.equal(span.traceId);
      expect(consumer?.parentSpanContext?.spanId).to.equal(span.spanId);
      expect(consumer?.links.map((l) => l.context.spanId)).to.deep.equal([delivery.spanContext().spanId]);
      expect(lines.at(-1)).to.include({ msg: 'handled', request_id: 'req-1', trace_id: span.traceId });
    });

    it('a batch of events of several requests is a span of its own, linked to each', async () => {
      exporter.reset();
      const first = await recordInRequest('req-a');
      const second = await recordInRequest('req-b');
      await consumeEvents([first.stored, second.stored], { topic: event.topic, groupId: 'g' }, async () =>
        logger.info('batch'),
      );
      const consumer = exporter.getFinishedSpans().find((s) => s.name === `process ${event.topic}`);
      expect(consumer?.parentSpanContext).to.equal(undefined);
      expect(consumer?.links.map((l) => l.context.spanId)).to.deep.equal([first.span.spanId, second.span.spanId]);
      expect(lines.at(-1)?.request_id).to.equal(undefined);
    });
  });
});
