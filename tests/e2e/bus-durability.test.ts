import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { eventually, newId, openDataSource, testRunId, testTrustEnv } from '@svc/kit';
import { startStackProcess, type StackProcess } from '../bench/stack-process';
import { FlowRunsLedger, RemoteStack, demoOrg } from '../support/remote-stack';
import { WebhookFixtures } from '../support/webhooks';
import { startDeployable, type DeployableProcess } from '../support/deployable-process';

const REQUESTS = 240;
const CONCURRENCY = 8;
/** Answered requests before flows' consumer is paused, and before the process is killed. */
const PAUSE_AT = 80;
const KILL_AT = 160;
const AFTER_RESTART = 40;

/**
 * The stack in its own process; on `npm run test:infra` on the real Kafka (its own topic prefix), where the kill takes
 * flows (and every other service) down with the process.
 */
function start(topicPrefix: string, stdoutFile: string, dataDir?: string): Promise<StackProcess> {
  const brokers = process.env.SVC_TEST_KAFKA_BROKERS;
  return startStackProcess(
    {
      // A run claimed when the process died is resumed after its lease: short here, so the test need not wait 60 s.
      FLOWS_RUN_LEASE_MS: '2000',
      FLOWS_RUNNER_INTERVAL_MS: '200',
      // Its log is kept when the test fails.
      LOG_LEVEL: 'info',
      // The killed process's consumers hold their partitions until their session expires: Kafka's least, not 30 s.
      ...(brokers ? { KAFKA_BROKERS: brokers, KAFKA_TOPIC_PREFIX: topicPrefix, KAFKA_SESSION_TIMEOUT_MS: '6000' } : {}),
    },
    { stdoutFile, ...(dataDir ? { dataDir } : {}) },
  );
}

/** The embedded bus's log as the restarted stack left it: records per topic and each group's committed offsets. */
async function busState(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'bus.sqlite');
  if (!fs.existsSync(file)) return 'no bus.sqlite';
  const db = await openDataSource(
    { url: `sqlite:${file}`, entities: [], migrations: { mysql: [], sqlite: [] } },
    { migrate: false },
  );
  try {
    const topics: unknown = await db.query(
      `SELECT t.topic, t.next_offset AS next, COUNT(r.seq) AS records, MIN(r.seq) AS first
         FROM bus_topics t LEFT JOIN bus_records r ON r.topic = t.topic GROUP BY t.topic`,
    );
    const groups: unknown = await db.query('SELECT group_id, topic, next_offset, committed_at FROM bus_group_offsets');
    return `topics ${JSON.stringify(topics)}; group offsets ${JSON.stringify(groups)}`;
  } finally {
    await db.destroy();
  }
}

/** The distinct warnings and errors in a stack's JSON log (what a failing run or consumer said), the first few. */
function logProblems(file: string, limit = 5): string[] {
  if (!fs.existsSync(file)) return [];
  const problems = new Set<string>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    try {
      const entry = JSON.parse(line) as { level?: number; service?: string; msg?: string; err?: { message?: string } };
      if ((entry.level ?? 0) >= 40)
        problems.add(`${entry.service ?? ''}: ${entry.msg ?? ''}: ${entry.err?.message ?? ''}`);
    } catch {
      // not a log line
    }
    if (problems.size >= limit) break;
  }
  return [...problems];
}

interface Load {
  accepted: Set<string>;
  /** Requests that got no answer or another status (sent while the process was dying, or refused). */
  unanswered: number;
}

/**
 * `count` webhooks from CONCURRENCY clients; `onAnswered(n)` after the n-th answer. Stops sending once `stopped()`.
 */
async function sendWebhooks(
  url: string,
  headers: Record<string, string>,
  body: string,
  count: number,
  onAnswered: (answered: number) => Promise<void> = async () => undefined,
  stopped: () => boolean = () => false,
): Promise<Load> {
  const load: Load = { accepted: new Set(), unanswered: 0 };
  let sent = 0;
  let answered = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < count && !stopped()) {
        sent += 1;
        try {
          const response = await fetch(url, { method: 'POST', headers, body });
          const reply = (await response.json()) as { requestId?: string };
          if (response.status !== 202 || !reply.requestId) throw new Error(`answered ${response.status}`);
          load.accepted.add(reply.requestId);
          answered += 1;
          await onAnswered(answered);
        } catch {
          load.unanswered += 1;
        }
      }
    }),
  );
  return load;
}

describe('Durable events: kill -9 of the stack mid-stream', function () {
  this.timeout(240_000);
  let stack: StackProcess | undefined;
  let ledger: FlowRunsLedger | undefined;
  /** Each test's own topics and consumer groups on Kafka. */
  let topicPrefix = '';
  /** The stack processes' logs (and, when the test fails, copies of its databases): removed when it passes. */
  let logDir = '';
  beforeEach(() => {
    topicPrefix = `kill${testRunId}.${newId().slice(-6)}.`;
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-kill-'));
  });

  afterEach(async function () {
    await ledger?.close();
    if (this.currentTest?.state === 'failed' && stack) {
      fs.cpSync(stack.dataDir, path.join(logDir, 'data'), { recursive: true });
      console.log(`      the stack's logs and databases are kept in ${logDir}`);
    } else fs.rmSync(logDir, { recursive: true, force: true });
    await stack?.stop();
    ledger = undefined;
    stack = undefined;
  });

  /** Starts the stack and its ledger, with a contact and a published flow on a Shared Secret connection. */
  async function webhookFlow(orderId: string) {
    const started = await start(topicPrefix, path.join(logDir, 'stack-1.log'));
    stack = started;
    ledger = await FlowRunsLedger.open(started.dataDir);
    const remote = new RemoteStack(started.url);
    const fixtures = new WebhookFixtures(remote, await demoOrg(started, remote));
    const email = `kill-${newId()}@example.com`;
    await fixtures.contactWithChat(email);
    const connection = await fixtures.connection({});
    const flowId = await fixtures.publishedFlow(connection._id, 'Order {{webhook.order.id}}');
    const headers = { 'content-type': 'application/json', 'x-webhook-secret': connection.secret ?? '' };
    const body = JSON.stringify({ customer: { email }, order: { id: orderId } });
    return { connection, flowId, headers, body };
  }

  it('every webhook answered 202 before or after the kill has exactly one COMPLETED flow run, and none has two', async () => {
    const { connection, flowId, headers, body } = await webhookFlow('K-1');
    if (!stack) throw new Error('the stack did not start');
    const dataDir = stack.dataDir;

    // Flows runs meanwhile; from PAUSE_AT its consumer is paused, so the requests answered after it are certainly
    // relayed out of webhook-ingress's outbox into the bus and not yet consumed when the process dies.
    const running = stack;
    let killed = false;
    let dying: Promise<void> | undefined;
    const before = await sendWebhooks(
      `${running.url}/webhooks/in/${connection._id}`,
      headers,
      body,
      REQUESTS,
      async (answered) => {
        if (answered === PAUSE_AT) await running.control('pause-flows-consumer');
        if (answered === KILL_AT) {
          killed = true;
          dying = running.kill();
        }
      },
      () => killed,
    );
    await dying;

    stack = await start(topicPrefix, path.join(logDir, 'stack-2.log'), dataDir);
    // A connection opened before the kill may keep reading the database as it was (the writer died holding the WAL):
    // the restarted stack's runs are read through a new one.
    await ledger?.close();
    ledger = await FlowRunsLedger.open(dataDir);
    const after = await sendWebhooks(`${stack.url}/webhooks/in/${connection._id}`, headers, body, AFTER_RESTART);
    expect(after.unanswered, 'requests refused after the restart').to.equal(0);
    const accepted = new Set([...before.accepted, ...after.accepted]);

    // Every accepted request's run, finished; a request whose 202 was lost in the kill may have one too.
    const rows = await eventually(
      async () => {
        const rows = await ledger?.runsByRequest(flowId);
        const done = rows?.filter((r) => r.requestId !== null && accepted.has(r.requestId) && r.completed >= 1);
        return done?.length === accepted.size && rows;
      },
      60_000,
      'a completed run for every accepted request',
    ).catch(async (error: Error) => {
      const rows = (await ledger?.runsByRequest(flowId)) ?? [];
      const ran = new Set(rows.filter((r) => r.completed >= 1).map((r) => r.requestId));
      const runsByStatus = JSON.stringify(await ledger?.runsByStatus(flowId));
      throw new Error(
        `${error.message}: ${[...accepted].filter((id) => !ran.has(id)).length} of ${accepted.size} lost; ` +
          `runs by status ${runsByStatus}; bus: ${await busState(dataDir)}; the restarted stack said: ` +
          JSON.stringify(logProblems(path.join(logDir, 'stack-2.log'))),
      );
    });
    const duplicates = rows.filter((r) => r.runs > 1);
    const notCompleted = rows.filter((r) => r.runs !== r.completed);
    const unseen = rows.filter((r) => r.requestId === null || !accepted.has(r.requestId));
    const lost = [...accepted].filter((id) => !rows.some((r) => r.requestId === id));
    console.log(
      `      kill -9 figures (${process.env.SVC_TEST_KAFKA_BROKERS ? 'Kafka' : 'embedded SQLite bus'}): ` +
        `${accepted.size} accepted (${before.accepted.size} before the kill, ${after.accepted.size} after the restart), ` +
        `${before.unanswered} unanswered at the kill, ${rows.reduce((n, r) => n + r.runs, 0)} runs, ` +
        `${duplicates.length} duplicates, ${lost.length} lost, ${unseen.length} runs for requests whose 202 the kill cut off`,
    );
    expect(before.accepted.size).to.be.at.least(KILL_AT);
    expect(duplicates, 'request ids with more than one run').to.deep.equal([]);
    expect(notCompleted, 'runs that did not complete').to.deep.equal([]);
    expect(lost, 'accepted requests without a run').to.deep.equal([]);
    // Only requests in flight at the kill can have been committed without their 202 reaching the client.
    expect(unseen.length).to.be.at.most(before.unanswered);
  });

  if (process.env.SVC_TEST_KAFKA_BROKERS)
    it('on Kafka, with flows in its own process killed mid-stream and started again: exactly one COMPLETED run per 202', async () => {
      const { connection, flowId, headers, body } = await webhookFlow('K-2');
      if (!stack) throw new Error('the stack did not start');
      // The stack's own flows consumer leaves the group: the flows deployable in its own process (on the same
      // database, as a second replica would share one) is the only consumer of accepted webhooks.
      await stack.control('pause-flows-consumer');
      const running = stack;
      let flows = await startFlowsProcess(running, topicPrefix);
      let killedFlows: Promise<void> | undefined;
      const load = await sendWebhooks(
        `${running.url}/webhooks/in/${connection._id}`,
        headers,
        body,
        REQUESTS,
        async (answered) => {
          if (answered === KILL_AT) killedFlows = flows.kill();
        },
      );
      expect(load.unanswered, 'requests refused while flows was down').to.equal(0);
      await killedFlows;
      flows = await startFlowsProcess(running, topicPrefix);
      try {
        const rows = await eventually(
          async () => {
            const rows = await ledger?.runsByRequest(flowId);
            const done = rows?.filter(
              (r) => r.requestId !== null && load.accepted.has(r.requestId) && r.completed >= 1,
            );
            return done?.length === load.accepted.size && rows;
          },
          120_000,
          'a completed run for every accepted request',
        ).catch(async (error: Error) => {
          const rows = (await ledger?.runsByRequest(flowId)) ?? [];
          throw new Error(
            `${error.message}: ${load.accepted.size} accepted, runs for ${rows.length} requests, ` +
              `${rows.filter((r) => r.completed >= 1).length} completed; flows said:\n${flows.output().slice(-3_000)}`,
          );
        });
        const duplicates = rows.filter((r) => r.runs > 1);
        const lost = [...load.accepted].filter((id) => !rows.some((r) => r.requestId === id));
        console.log(
          `      kill -9 of flows alone (Kafka): ${load.accepted.size} accepted, ` +
            `${rows.reduce((n, r) => n + r.runs, 0)} runs, ${duplicates.length} duplicates, ${lost.length} lost`,
        );
        expect(duplicates, 'request ids with more than one run').to.deep.equal([]);
        expect(
          rows.filter((r) => r.runs !== r.completed),
          'runs that did not complete',
        ).to.deep.equal([]);
        expect(rows.length).to.equal(load.accepted.size);
      } finally {
        await flows.kill();
      }
    });
});

/** flows' deployable (`services/flows/dist/src/main.js`) against the stack's services, database and Kafka topics. */
function startFlowsProcess(stack: StackProcess, topicPrefix: string): Promise<DeployableProcess> {
  return startDeployable('flows', {
    LOG_LEVEL: 'info',
    DB_URL: `sqlite:${path.join(stack.dataDir, 'flows.sqlite')}`,
    DB_MIGRATE: 'skip',
    KAFKA_BROKERS: process.env.SVC_TEST_KAFKA_BROKERS ?? '',
    KAFKA_TOPIC_PREFIX: topicPrefix,
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    ...testTrustEnv('flows'),
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: '0',
    HTTP_PORT: '0',
    IDENTITY_GRPC_URL: `127.0.0.1:${stack.grpc.identity}`,
    INBOX_GRPC_URL: `127.0.0.1:${stack.grpc.inbox}`,
    CONTACTS_GRPC_URL: `127.0.0.1:${stack.grpc.contacts}`,
    WEBHOOK_INGRESS_GRPC_URL: `127.0.0.1:${stack.grpc['webhook-ingress']}`,
    FLOWS_RUN_LEASE_MS: '2000',
    FLOWS_RUNNER_INTERVAL_MS: '200',
  });
}
