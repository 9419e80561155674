import * as path from 'node:path';
import { callerMetadata, grpcClient, newId, openDataSource, systemPrincipal, unary } from '@svc/kit';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import type { StackProcess } from '../bench/stack-process';
import type { GraphQLResponse } from './stack-harness';
import type { FixtureOrg, HttpStack } from './webhooks';

/** How many runs one request id started, and how many of them COMPLETED. */
export interface RequestRuns {
  requestId: string | null;
  runs: number;
  completed: number;
}

/** The stack in the other process, seen only through its HTTP surface (and the inbox's gRPC to open a chat). */
export class RemoteStack implements HttpStack {
  constructor(readonly url: string) {}

  async graphql<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
    token?: string,
  ): Promise<GraphQLResponse<T>> {
    const response = await fetch(`${this.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as GraphQLResponse<T>['body'] };
  }
}

/** The demo org of the stack process, logged in as its owner. */
export async function demoOrg(stack: StackProcess, remote: RemoteStack): Promise<FixtureOrg> {
  const login = await remote.graphql<{ login: { token: string } }>(
    'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { token } }',
    { e: stack.demo.SVC_DEMO_EMAIL, p: stack.demo.SVC_DEMO_PASSWORD },
  );
  const sessionToken = login.body.data?.login.token;
  if (!sessionToken) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  const identity = grpcClient(IdentityServiceClient, `127.0.0.1:${stack.grpc.identity}`);
  const owner = await unary(
    identity.authenticate.bind(identity),
    { credential: sessionToken, actAsOrgId: '' },
    callerMetadata(systemPrincipal(), 'identity'),
  ).finally(() => identity.close());
  return {
    sessionToken,
    openChat: async (contact = {}) => {
      const inbox = grpcClient(InboxServiceClient, `127.0.0.1:${stack.grpc.inbox}`);
      try {
        const chat = await unary(
          inbox.openChat.bind(inbox),
          { channelId: newId(), contact: { _id: newId(), name: 'Bench Customer', ...contact } },
          callerMetadata(systemPrincipal(owner.orgId), 'inbox'),
        );
        return chat._id;
      } finally {
        inbox.close();
      }
    },
  };
}

/**
 * flows' runs, read straight from its SQLite file in the stack's data dir (another process: WAL readers never block
 * the writer), as the e2e suite counts them: exact, and cheaper than paging `flowRuns` every 100 ms.
 */
export class FlowRunsLedger {
  private constructor(private readonly db: Awaited<ReturnType<typeof openDataSource>>) {}

  static async open(dataDir: string): Promise<FlowRunsLedger> {
    const url = `sqlite:${path.join(dataDir, 'flows.sqlite')}`;
    return new FlowRunsLedger(
      await openDataSource({ url, entities: [], migrations: { mysql: [], sqlite: [] } }, { migrate: false }),
    );
  }

  async progress(flowId: string): Promise<{ runs: number; finished: number }> {
    const [row] = (await this.db.query(
      `SELECT COUNT(*) AS runs, COALESCE(SUM(status IN ('COMPLETED', 'FAILED', 'STOPPED')), 0) AS finished
         FROM flow_runs WHERE flow_id = ?`,
      [flowId],
    )) as { runs: number; finished: number }[];
    return { runs: Number(row?.runs ?? 0), finished: Number(row?.finished ?? 0) };
  }

  /** Waits until the flow has exactly `expected` runs, all finished; returns the ms it took. */
  async drained(flowId: string, expected: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const { runs, finished } = await this.progress(flowId);
      if (runs > expected) throw new Error(`flow ${flowId} has ${runs} runs for ${expected} accepted requests`);
      if (runs === expected && finished === expected) return Date.now() - started;
      if (Date.now() - started > 600_000)
        throw new Error(`flows did not catch up within 10 min (${finished} of ${expected} runs finished)`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The flow's runs by the request that started them. */
  /** How many of the flow's runs are in each status (what a stuck run looks like when a test fails). */
  async runsByStatus(flowId: string): Promise<Record<string, number>> {
    const rows = (await this.db.query(
      'SELECT status, COUNT(*) AS runs FROM flow_runs WHERE flow_id = ? GROUP BY status',
      [flowId],
    )) as { status: string; runs: number }[];
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.runs)]));
  }

  async runsByRequest(flowId: string): Promise<RequestRuns[]> {
    const rows = (await this.db.query(
      `SELECT request_id AS requestId, COUNT(*) AS runs, SUM(status = 'COMPLETED') AS completed
         FROM flow_runs WHERE flow_id = ? GROUP BY request_id`,
      [flowId],
    )) as { requestId: string | null; runs: number; completed: number }[];
    return rows.map((row) => ({ requestId: row.requestId, runs: Number(row.runs), completed: Number(row.completed) }));
  }

  /** Exactly one COMPLETED run per accepted request id, and none for anything else: throws otherwise. */
  async checkExactlyOnce(flowId: string, requestIds: Set<string>): Promise<void> {
    const rows = await this.runsByRequest(flowId);
    const problems: string[] = [];
    for (const row of rows) {
      if (row.requestId === null || !requestIds.has(row.requestId))
        problems.push(`${row.runs} run(s) for request ${String(row.requestId)}, which was not accepted here`);
      else if (row.runs !== 1) problems.push(`${row.runs} runs for request ${row.requestId}`);
      else if (row.completed !== 1) problems.push(`the run of request ${row.requestId} did not complete`);
    }
    if (rows.length !== requestIds.size)
      problems.push(`${requestIds.size} accepted requests but runs for ${rows.length} request ids`);
    if (problems.length)
      throw new Error(`exactly-once check failed for flow ${flowId}:\n  ${problems.slice(0, 10).join('\n  ')}`);
  }

  close(): Promise<void> {
    return this.db.destroy();
  }
}
