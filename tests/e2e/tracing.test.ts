import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { dropTestDatabase, eventually, newId, testRunId } from '@svc/kit';
import { startStackProcess, type StackProcess } from '../bench/stack-process';
import { OtlpReceiver, attribute, type ReceivedSpan } from '../support/otlp-receiver';
import { RemoteStack, demoOrg } from '../support/remote-stack';
import { WebhookFixtures, postWebhook } from '../support/webhooks';

const SERVER = 2;
const SERVICES = ['identity', 'inbox', 'contacts', 'flows', 'webhook-ingress'];
/** On `npm run test:infra`: the stack's databases on the MariaDB server (dropped after), for the mysql2 spans. */
const mysqlTemplate = process.env.SVC_TEST_MYSQL_URL
  ? `${process.env.SVC_TEST_MYSQL_URL.replace(/^mysql:/, 'mariadb:').replace(/\/$/, '')}/svc_t_${testRunId}_trace_{service}`
  : undefined;
const CONSUMER = 5;

interface LogLine {
  service?: string;
  msg?: string;
  request_id?: string;
  trace_id?: string;
}

/**
 * The stack in its own process, as `npm start` runs it (tracing must be registered before grpc-js, http and koa load,
 * which the in-process harness cannot do once other suites loaded them), exporting OTLP/HTTP JSON to a receiver here;
 * on `npm run test:infra` on MariaDB and Kafka (the kafkajs path).
 */
describe('Following one request: one trace and one request id from webhook to inbox message', function () {
  this.timeout(120_000);
  const receiver = new OtlpReceiver();
  let stack: StackProcess | undefined;
  let logFile = '';

  before(async () => {
    const endpoint = await receiver.start();
    logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-trace-')), 'stack.log');
    const brokers = process.env.SVC_TEST_KAFKA_BROKERS;
    stack = await startStackProcess(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'svc-stack',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        LOG_LEVEL: 'debug',
        FLOWS_RUNNER_INTERVAL_MS: '200',
        ...(mysqlTemplate ? { SVC_DB_URL_TEMPLATE: mysqlTemplate } : {}),
        ...(brokers ? { KAFKA_BROKERS: brokers, KAFKA_TOPIC_PREFIX: `trace${testRunId}.${newId().slice(-6)}.` } : {}),
      },
      { stdoutFile: logFile },
    );
  });

  after(async () => {
    await stack?.stop();
    await receiver.stop();
    if (mysqlTemplate)
      for (const service of SERVICES) await dropTestDatabase(mysqlTemplate.replace('{service}', service));
    fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
  });

  it('an accepted webhook yields one trace whose spans cover webhook-ingress, flows and inbox, and its log lines carry its x-request-id and trace id', async () => {
    if (!stack) throw new Error('the stack did not start');
    const remote = new RemoteStack(stack.url);
    const fixtures = new WebhookFixtures(remote, await demoOrg(stack, remote));
    const email = `trace-${newId()}@example.com`;
    await fixtures.contactWithChat(email);
    const connection = await fixtures.connection({});
    await fixtures.publishedFlow(connection._id, 'Order {{webhook.order.id}}');
    const requestId = `trace-${newId()}`;
    const accepted = await postWebhook(
      remote,
      connection._id,
      JSON.stringify({ customer: { email }, order: { id: 'T-1' } }),
      { 'x-webhook-secret': connection.secret ?? '', 'x-request-id': requestId },
    );
    expect(accepted.status).to.equal(202);
    expect(accepted.headers.get('x-request-id')).to.equal(requestId);

    const isIngress = (span: ReceivedSpan) =>
      span.kind === SERVER &&
      (attribute(span, 'http.target') ?? attribute(span, 'url.path') ?? '').startsWith(
        `/webhooks/in/${connection._id}`,
      );
    const trace = await eventually(
      async () => {
        const ingress = receiver.spans.find(isIngress);
        if (!ingress) return undefined;
        const spans = receiver.trace(ingress.traceId);
        const consumed = spans.some((s) => s.kind === CONSUMER && s.name.endsWith('svc.webhooks.received.v1'));
        const ran = spans.some((s) => s.name === 'flow run');
        const inbox = spans.some((s) => s.kind === SERVER && s.name.startsWith('grpc.svc.inbox.v1.InboxService/'));
        return consumed && ran && inbox ? { ingress, spans } : undefined;
      },
      60_000,
      'the webhook-ingress, flows and inbox spans of the request in one trace',
    ).catch((error: Error) => {
      const names = new Map<string, number>();
      for (const span of receiver.spans)
        names.set(`${span.kind} ${span.name}`, (names.get(`${span.kind} ${span.name}`) ?? 0) + 1);
      throw new Error(
        `${error.message}; spans received (kind name: count):\n  ${[...names].map(([n, c]) => `${n}: ${c}`).join('\n  ')}`,
      );
    });
    if (mysqlTemplate) {
      const mysql = (s: ReceivedSpan) => (attribute(s, 'db.system.name') ?? attribute(s, 'db.system')) === 'mysql';
      expect(trace.spans.some(mysql), 'mysql2 spans in the trace').to.equal(true);
    }
    // The request's own span is the root: the outbox relay, running later in its own context, is not in between.
    expect(trace.ingress.parentSpanId ?? '').to.equal('');
    const ids = new Set(trace.spans.map((s) => s.spanId));
    for (const span of trace.spans) if (span.parentSpanId) expect(ids, span.name).to.include(span.parentSpanId);

    // Sent only now: a webhook consumed in one batch with the first would make the consumer span a link, not a child.
    const unnamed = await postWebhook(remote, connection._id, JSON.stringify({ customer: { email } }), {
      'x-webhook-secret': connection.secret ?? '',
    });
    expect(unnamed.headers.get('x-request-id'), 'a generated x-request-id').to.match(/^[0-9a-f-]{36}$/);

    const lines = fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
    const ofRequest = lines.filter((line) => line.request_id === requestId);
    expect(ofRequest.map((line) => line.service)).to.include('flows');
    for (const line of ofRequest) expect(line.trace_id, line.msg).to.equal(trace.ingress.traceId);
  });
});
