import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { createLogger, dropTestDatabase, eventually, insertRows, newId, openDataSource, testDbUrl } from '@svc/kit';
import { FlowRunStatus, FlowStepType, FlowTriggerType, type FlowStep } from '@svc/proto/flows/v1';
import { flowsData } from '../src';
import { Runner } from '../src/domain/runner';
import type { StepActions } from '../src/domain/steps';
import { RunRow } from '../src/entities';

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
  const at = new Date();
  return {
    id: newId(at),
    orgId: newId(),
    flowId: newId(),
    status: FlowRunStatus.QUEUED,
    trigger: FlowTriggerType.WEBHOOK_RECEIVED,
    chatId: newId(),
    contactId: newId(),
    requestId: newId(),
    requestContext: null,
    eventId: newId(),
    payload: '{}',
    steps: JSON.stringify(steps),
    stepIndex: 0,
    resumeAt: at,
    error: null,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
  };
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
});
