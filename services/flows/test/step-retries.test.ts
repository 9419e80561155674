import { expect } from 'chai';
import { Server, ServerCredentials, status, type ServiceError } from '@grpc/grpc-js';
import {
  ApiScope,
  DeadlineExceeded,
  FailedPrecondition,
  InvalidArgument,
  NotFound,
  PrincipalKind,
  Unavailable,
  apiKeyPrincipal,
  callerMetadata,
  dropTestDatabase,
  eventually,
  grpcClient,
  newId,
  principalFor,
  testEnv,
  unary,
} from '@svc/kit';
import { FlowRunStatus, FlowStepType, FlowTriggerType, FlowsServiceClient, type FlowRun } from '@svc/proto/flows/v1';
import { Chat, InboxServiceService, Message } from '@svc/proto/inbox/v1';
import { FlowsApp, flowsConfig } from '../src';
import { backoffMs, isTransient } from '../src/domain/step-retries';

type Callback = (error: Partial<ServiceError> | null, value?: unknown) => void;

/**
 * A stand-in for the inbox that answers SendMessage with the gRPC status scripted for the message's text (then OK),
 * and records each message it accepted: the effects a run had. Like the inbox, a message sent again with the key of
 * one it accepted is not accepted again (docs/decisions/0083).
 */
class ScriptedInbox {
  readonly server = new Server();
  readonly accepted: string[] = [];
  readonly attempts = new Map<string, number>();
  readonly keys = new Map<string, (string | undefined)[]>();
  private readonly acceptedKeys = new Set<string>();
  private readonly refusals = new Map<string, status[]>();
  private readonly lostAnswers = new Map<string, status[]>();
  port = 0;

  /** SendMessage of `text` answers these statuses in turn, then OK. */
  refuse(text: string, ...statuses: status[]): void {
    this.refusals.set(text, statuses);
  }

  /** SendMessage of `text` takes effect, but answers these statuses in turn (a connection lost after the commit). */
  loseAnswers(text: string, ...statuses: status[]): void {
    this.lostAnswers.set(text, statuses);
  }

  private accept(text: string, key: string | undefined): void {
    if (key !== undefined && this.acceptedKeys.has(key)) return;
    if (key !== undefined) this.acceptedKeys.add(key);
    this.accepted.push(text);
  }

  async start(): Promise<void> {
    this.server.addService(InboxServiceService, {
      getChat: (call: { request: { chatId: string } }, callback: Callback) =>
        callback(null, Chat.fromPartial({ _id: call.request.chatId, contact: { _id: newId() } })),
      sendMessage: (
        call: { request: { chatId: string; input?: { text?: string }; idempotencyKey?: string } },
        callback: Callback,
      ) => {
        const text = call.request.input?.text ?? '';
        const key = call.request.idempotencyKey;
        this.attempts.set(text, (this.attempts.get(text) ?? 0) + 1);
        this.keys.set(text, [...(this.keys.get(text) ?? []), key]);
        const refusal = this.refusals.get(text)?.shift();
        if (refusal !== undefined) return callback({ code: refusal, details: `scripted ${status[refusal]}` });
        this.accept(text, key);
        const lost = this.lostAnswers.get(text)?.shift();
        if (lost !== undefined) return callback({ code: lost, details: `scripted ${status[lost]}` });
        callback(null, Message.fromPartial({ _id: newId(), chatId: call.request.chatId, text }));
      },
    });
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
  }
}

describe('flow step retries', () => {
  describe('isTransient', () => {
    it('retries what the other service may answer if asked again (UNAVAILABLE, DEADLINE_EXCEEDED) and nothing else', () => {
      const errors = [
        new Unavailable('x'),
        new DeadlineExceeded('x'),
        new NotFound('x'),
        new InvalidArgument('x'),
        new FailedPrecondition('x'),
        new Error('x'),
      ];
      expect(errors.map(isTransient)).to.deep.equal([true, true, false, false, false, false]);
    });
  });

  describe('backoffMs', () => {
    const policy = { attempts: 20, backoffMs: 1_000, maxBackoffMs: 300_000 };
    it('doubles from the first backoff up to the cap, jittered within the upper half', () => {
      const at = (failures: number, random: number) => backoffMs(failures, policy, () => random);
      expect([1, 2, 3, 9, 10, 19].map((n) => at(n, 1))).to.deep.equal([1_000, 2_000, 4_000, 256_000, 300_000, 300_000]);
      expect([1, 2, 10].map((n) => at(n, 0))).to.deep.equal([500, 1_000, 150_000]);
    });
  });

  describe('FlowsApp against an inbox answering UNAVAILABLE', () => {
    const inbox = new ScriptedInbox();
    let app: FlowsApp;
    let client: FlowsServiceClient;

    before(async () => {
      await inbox.start();
      const env = testEnv('flows_retries', {
        FLOWS_RUNNER_INTERVAL_MS: '50',
        FLOWS_STEP_RETRY_ATTEMPTS: '4',
        FLOWS_STEP_RETRY_BACKOFF_MS: '1',
        FLOWS_STEP_RETRY_MAX_BACKOFF_MS: '2',
      });
      app = new FlowsApp(flowsConfig(env), { serveHttp: false, inboxAddress: () => `127.0.0.1:${inbox.port}` });
      await app.start();
      client = grpcClient(FlowsServiceClient, `127.0.0.1:${app.grpcPort}`);
    });

    after(async () => {
      client.close();
      await app.stop();
      inbox.server.forceShutdown();
      await dropTestDatabase(app.config.DB_URL);
    });

    /** Publishes a one-step flow that sends `text`, starts it for a chat and waits for the run to end. */
    async function runToEnd(text: string): Promise<FlowRun> {
      const orgId = newId();
      const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'flows');
      const input = {
        name: 'greet',
        trigger: { type: FlowTriggerType.STARTED_FOR_CHAT },
        steps: [{ type: FlowStepType.SEND_MESSAGE, text }],
        replaceSteps: false,
      };
      const flow = await unary(client.createFlow.bind(client), { input }, member);
      await unary(client.publishFlow.bind(client), { flowId: flow._id }, member);
      const key = callerMetadata(apiKeyPrincipal(orgId, [ApiScope.CONVERSATIONS_MANAGE]), 'flows');
      await unary(client.startFlowForChat.bind(client), { chatId: newId(), flowId: flow._id }, key);
      return eventually(async () => {
        const page = await unary(client.listFlowRuns.bind(client), { flowId: flow._id, input: { limit: 1 } }, member);
        const run = page.data[0];
        return run && [FlowRunStatus.COMPLETED, FlowRunStatus.FAILED].includes(run.status) && run;
      });
    }

    it('completes a run whose message the inbox refused UNAVAILABLE twice, with the message sent once', async () => {
      const text = `hello ${newId()}`;
      inbox.refuse(text, status.UNAVAILABLE, status.UNAVAILABLE);
      const run = await runToEnd(text);
      expect([run.status, run.error]).to.deep.equal([FlowRunStatus.COMPLETED, undefined]);
      expect([inbox.attempts.get(text), inbox.accepted.filter((t) => t === text).length]).to.deep.equal([3, 1]);
    });

    it('posts once a message whose first send took effect but answered UNAVAILABLE, retried with the same key', async () => {
      const text = `hello ${newId()}`;
      inbox.loseAnswers(text, status.UNAVAILABLE, status.DEADLINE_EXCEEDED);
      const run = await runToEnd(text);
      expect([run.status, run.error]).to.deep.equal([FlowRunStatus.COMPLETED, undefined]);
      expect([inbox.attempts.get(text), inbox.accepted.filter((t) => t === text).length]).to.deep.equal([3, 1]);
      expect(inbox.keys.get(text)).to.deep.equal(Array(3).fill(`flow-run:${run._id}:0`));
    });

    it('fails a run whose inbox stays UNAVAILABLE after the configured attempts, naming them', async () => {
      const text = `hello ${newId()}`;
      inbox.refuse(text, ...Array<status>(10).fill(status.UNAVAILABLE));
      const run = await runToEnd(text);
      expect(run.status).to.equal(FlowRunStatus.FAILED);
      expect(run.error).to.match(/^a step failed in another service \(UNAVAILABLE\) on every attempt: retried 3 times/);
      expect([inbox.attempts.get(text), inbox.accepted.includes(text)]).to.deep.equal([4, false]);
    });

    it('fails a run at once when the inbox refuses the step (NOT_FOUND)', async () => {
      const text = `hello ${newId()}`;
      inbox.refuse(text, status.NOT_FOUND);
      const run = await runToEnd(text);
      expect([run.status, run.error]).to.deep.equal([FlowRunStatus.FAILED, 'a step failed in another service']);
      expect(inbox.attempts.get(text)).to.equal(1);
    });
  });
});
