import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  DeadlineExceeded,
  NotFound,
  Unavailable,
  createLogger,
  dropTestDatabase,
  eventually,
  insertRows,
  newId,
  openDataSource,
  testDbUrl,
  apiKeyPrincipal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { FlowRunStatus, FlowStatus, FlowStepType, FlowTriggerType, type FlowStep } from '@svc/proto/flows/v1';
import { flowsData } from '../src';
import { Runner } from '../src/domain/runner';
import type { StepActions } from '../src/domain/steps';
import { stepRetries, type StepRetryPolicy } from '../src/domain/step-retries';
import { Runs, newRun } from '../src/domain/runs';
import { FlowRow, RunRow } from '../src/entities';

/** Actions that record each message sent and otherwise do nothing; `onSend` runs inside the step. */
function sendingActions(onSend: (chatId: string, text: string) => Promise<void> = async () => undefined) {
  const sent: { chatId: string; text: string }[] = [];
  const none = async () => undefined;
  const actions: StepActions = {
    sendMessage: async (_orgId, chatId, text) => {
      sent.push({ chatId, text });
      await onSend(chatId, text);
    },
    closeChat: none,
    assign: none,
    addLabel: none,
    setContactAttribute: none,
  };
  return { actions, sent };
}

function queuedRun(steps: FlowStep[]): RunRow {
  return newRun({ orgId: newId(), id: newId(), steps: JSON.stringify(steps) }, new Date(), {
    chatId: newId(),
    contactId: newId(),
    requestId: newId(),
    eventId: newId(),
  });
}

const send = (text: string): FlowStep => ({ type: FlowStepType.SEND_MESSAGE, text }) as FlowStep;

describe('Runner', () => {
  const url = testDbUrl('flows_runner');
  const logger = createLogger('flows-runner-test', 'silent');
  let dataSource: DataSource;

  before(async () => {
    dataSource = await openDataSource({ ...flowsData, url }, { migrate: true });
  });

  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  const statusOf = async (ids: string[]) =>
    (await dataSource.getRepository(RunRow).findBy(ids.map((id) => ({ id })))).map((run) => run.status);

  it('runs each due run exactly once when two replicas claim from the same table', async () => {
    const runs = Array.from({ length: 30 }, (_, n) => queuedRun([send(`hello ${n}`)]));
    await insertRows(dataSource.manager, RunRow, runs);
    const { actions, sent } = sendingActions();
    const replicas = [new Runner(dataSource, actions, logger, 50), new Runner(dataSource, actions, logger, 50)];
    replicas.forEach((runner) => runner.start());
    try {
      const ids = runs.map((run) => run.id);
      await eventually(async () => (await statusOf(ids)).every((s) => s === FlowRunStatus.COMPLETED));
    } finally {
      await Promise.all(replicas.map((runner) => runner.stop()));
    }
    expect(sent.map((m) => m.chatId).sort()).to.deep.equal(runs.map((run) => run.chatId).sort());
    const done = await dataSource.getRepository(RunRow).findOneByOrFail({ id: runs[0]?.id ?? '' });
    expect([done.stepIndex, done.finishedAt instanceof Date]).to.deep.equal([1, true]);
  });

  it('runs no further step of a run stopped while one of its steps ran', async () => {
    const run = queuedRun([send('first'), send('second')]);
    await insertRows(dataSource.manager, RunRow, [run]);
    // Stopped as apiStopFlowForChat does, while the first step is in flight.
    const { actions, sent } = sendingActions(async () => {
      await dataSource.getRepository(RunRow).update({ id: run.id }, { status: FlowRunStatus.STOPPED });
    });
    const runner = new Runner(dataSource, actions, logger, 50);
    runner.start();
    await eventually(async () => sent.length > 0);
    await runner.stop();
    expect(sent.map((m) => m.text)).to.deep.equal(['first']);
    const stopped = await dataSource.getRepository(RunRow).findOneByOrFail({ id: run.id });
    expect([stopped.status, stopped.stepIndex]).to.deep.equal([FlowRunStatus.STOPPED, 0]);
  });

  it('marks a run FAILED at the step whose call failed, and runs nothing after it', async () => {
    const run = queuedRun([send('boom'), send('never')]);
    await insertRows(dataSource.manager, RunRow, [run]);
    const { actions, sent } = sendingActions(async () => {
      throw new Error('inbox unavailable');
    });
    const runner = new Runner(dataSource, actions, logger, 50);
    runner.start();
    try {
      await eventually(async () => (await statusOf([run.id]))[0] === FlowRunStatus.FAILED);
    } finally {
      await runner.stop();
    }
    expect(sent.map((m) => m.text)).to.deep.equal(['boom']);
    const failed = await dataSource.getRepository(RunRow).findOneByOrFail({ id: run.id });
    expect([failed.stepIndex, failed.error]).to.deep.equal([0, 'a step failed in another service']);
  });

  describe('a step whose call failed transiently', () => {
    /** Backoffs of a millisecond: a retried run is due again by the runner's next look (no test waits for it). */
    const quick = (attempts: number): StepRetryPolicy => ({ attempts, backoffMs: 1, maxBackoffMs: 2 });
    const runOf = (id: string) => dataSource.getRepository(RunRow).findOneByOrFail({ id });
    const retriesBy = async (outcome: string) =>
      (await stepRetries.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;

    async function runUntil(runner: Runner, id: string, status: FlowRunStatus): Promise<RunRow> {
      runner.start();
      try {
        return await eventually(async () => {
          const run = await runOf(id);
          return run.status === status && run;
        });
      } finally {
        await runner.stop();
      }
    }

    it('is retried at the same step until it succeeds: the run completes with one effect and its attempts reset', async () => {
      const run = queuedRun([send('hello'), send('after')]);
      await insertRows(dataSource.manager, RunRow, [run]);
      let refusals = 2;
      const { actions, sent } = sendingActions(async (_chatId, text) => {
        if (text === 'hello' && refusals-- > 0) throw new Unavailable('inbox restarting');
      });
      const [retried, recovered] = [await retriesBy('retry'), await retriesBy('recovered')];
      const done = await runUntil(
        new Runner(dataSource, actions, logger, 50, 60_000, quick(5)),
        run.id,
        FlowRunStatus.COMPLETED,
      );
      // Two refused attempts and the one that took effect, then the next step once.
      expect(sent.map((m) => m.text)).to.deep.equal(['hello', 'hello', 'hello', 'after']);
      expect([done.stepIndex, done.stepAttempts, done.stepFailingSince, done.error]).to.deep.equal([2, 0, null, null]);
      expect([(await retriesBy('retry')) - retried, (await retriesBy('recovered')) - recovered]).to.deep.equal([2, 1]);
    });

    it('fails the run after the last attempt, saying how often and over how long it was retried', async () => {
      const run = queuedRun([send('hello'), send('never')]);
      await insertRows(dataSource.manager, RunRow, [run]);
      const { actions, sent } = sendingActions(async () => {
        throw new DeadlineExceeded('deadline exceeded');
      });
      const exhausted = await retriesBy('exhausted');
      const failed = await runUntil(
        new Runner(dataSource, actions, logger, 50, 60_000, quick(3)),
        run.id,
        FlowRunStatus.FAILED,
      );
      expect(sent.map((m) => m.text)).to.deep.equal(['hello', 'hello', 'hello']);
      expect([failed.stepIndex, failed.stepAttempts]).to.deep.equal([0, 3]);
      expect(failed.error).to.match(
        /^a step failed in another service \(DEADLINE_EXCEEDED\) on every attempt: retried 2 times over \d+ s$/,
      );
      expect((await retriesBy('exhausted')) - exhausted).to.equal(1);
    });

    it('fails the run at once when the other service refused the step (NOT_FOUND), as before', async () => {
      const run = queuedRun([send('hello')]);
      await insertRows(dataSource.manager, RunRow, [run]);
      const { actions, sent } = sendingActions(async () => {
        throw new NotFound('chat not found', { field: 'chatId' });
      });
      const failed = await runUntil(
        new Runner(dataSource, actions, logger, 50, 60_000, quick(5)),
        run.id,
        FlowRunStatus.FAILED,
      );
      expect(sent).to.have.length(1);
      expect([failed.stepAttempts, failed.error]).to.deep.equal([0, 'a step failed in another service']);
    });

    it('waits with its last failure visible, and a runner started later (a restart) resumes it at that step', async () => {
      const run = queuedRun([send('first'), send('hello')]);
      await insertRows(dataSource.manager, RunRow, [run]);
      const down = sendingActions(async (_chatId, text) => {
        if (text === 'hello') throw new Unavailable('inbox restarting');
      });
      // A backoff of an hour: the first runner stops (the process ends) while the run waits for it.
      const slow: StepRetryPolicy = { attempts: 3, backoffMs: 3_600_000, maxBackoffMs: 3_600_000 };
      const waiting = await runUntil(
        new Runner(dataSource, down.actions, logger, 50, 60_000, slow),
        run.id,
        FlowRunStatus.WAITING,
      );
      expect([waiting.stepIndex, waiting.stepAttempts]).to.deep.equal([1, 1]);
      expect(waiting.error).to.match(/^a step failed in another service \(UNAVAILABLE\); attempt 1 of 3, retrying at /);
      expect(waiting.resumeAt.getTime()).to.be.greaterThan(Date.now() + 1_000_000);
      // The hour has passed.
      await dataSource.getRepository(RunRow).update({ id: run.id }, { resumeAt: new Date() });
      const up = sendingActions();
      const done = await runUntil(
        new Runner(dataSource, up.actions, logger, 50, 60_000, slow),
        run.id,
        FlowRunStatus.COMPLETED,
      );
      expect([down.sent.map((m) => m.text), up.sent.map((m) => m.text)]).to.deep.equal([['first', 'hello'], ['hello']]);
      expect([done.stepAttempts, done.error]).to.deep.equal([0, null]);
    });

    it('counts the attempts made before a restart towards the budget', async () => {
      const run = queuedRun([send('hello')]);
      await insertRows(dataSource.manager, RunRow, [run]);
      const { actions, sent } = sendingActions(async () => {
        throw new Unavailable('inbox restarting');
      });
      const slow: StepRetryPolicy = { attempts: 2, backoffMs: 3_600_000, maxBackoffMs: 3_600_000 };
      await runUntil(new Runner(dataSource, actions, logger, 50, 60_000, slow), run.id, FlowRunStatus.WAITING);
      await dataSource.getRepository(RunRow).update({ id: run.id }, { resumeAt: new Date() });
      const failed = await runUntil(
        new Runner(dataSource, actions, logger, 50, 60_000, slow),
        run.id,
        FlowRunStatus.FAILED,
      );
      expect(sent).to.have.length(2);
      expect(failed.error).to.match(/retried 1 times over/);
    });

    it('no longer says it will retry once the run was stopped while it waited', async () => {
      const run = queuedRun([send('hello')]);
      const at = new Date();
      const flow: FlowRow = {
        id: run.flowId,
        orgId: run.orgId,
        name: 'greet',
        status: FlowStatus.PUBLISHED,
        triggerType: FlowTriggerType.STARTED_FOR_CHAT,
        connectionId: null,
        steps: run.steps,
        version: 1,
        createdAt: at,
        updatedAt: at,
        publishedAt: at,
      };
      await insertRows(dataSource.manager, FlowRow, [flow]);
      await insertRows(dataSource.manager, RunRow, [run]);
      const { actions } = sendingActions(async () => {
        throw new Unavailable('inbox restarting');
      });
      const slow: StepRetryPolicy = { attempts: 3, backoffMs: 3_600_000, maxBackoffMs: 3_600_000 };
      await runUntil(new Runner(dataSource, actions, logger, 50, 60_000, slow), run.id, FlowRunStatus.WAITING);
      const manage = apiKeyPrincipal(run.orgId, [ApiScope.CONVERSATIONS_MANAGE]);
      const stopped = await new Runs(dataSource, () => undefined).stopForChat(
        manage,
        run.chatId ?? '',
        run.flowId,
        async () => run.contactId ?? '',
      );
      const after = await runOf(run.id);
      expect([stopped, after.status, after.error]).to.deep.equal([1, FlowRunStatus.STOPPED, null]);
    });
  });
});
