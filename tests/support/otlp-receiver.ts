import { createServer, type Server } from 'node:http';

/** One span as OTLP/JSON carries it (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
  links?: { traceId: string; spanId: string }[];
}

interface ExportTraceServiceRequest {
  resourceSpans?: { scopeSpans?: { spans?: ReceivedSpan[] }[] }[];
}

export function attribute(span: ReceivedSpan, key: string): string | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : String(value.intValue));
}

/**
 * A collector stand-in for the tests: takes OTLP/HTTP exports in JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) on
 * `/v1/traces` and keeps the spans.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/v1/traces') {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportTraceServiceRequest;
          for (const resource of body.resourceSpans ?? [])
            for (const scope of resource.scopeSpans ?? []) this.spans.push(...(scope.spans ?? []));
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address !== 'object') throw new Error('the OTLP receiver is not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
