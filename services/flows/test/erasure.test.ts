import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  createLogger,
  dropTestDatabase,
  eventually,
  newId,
  openDataSource,
  participantRoundTrip,
  testDbUrl,
  testEnv,
  testErasure,
  documentedErasureKinds,
} from '@svc/kit';
import { FlowRunStatus, FlowStepType, type FlowStep } from '@svc/proto/flows/v1';
import { FlowsApp, flowsConfig, flowsData } from '../src';
import { FLOWS_CONTACT_ROWS } from '../src/domain/erasure';
import { Runner } from '../src/domain/runner';
import { newRun } from '../src/domain/runs';
import type { StepActions } from '../src/domain/steps';
import { RunRow } from '../src/entities';

const send = (text: string): FlowStep => ({ type: FlowStepType.SEND_MESSAGE, text }) as FlowStep;

function run(orgId: string, contactId: string | null, steps: FlowStep[] = [send('hi')]): RunRow {
  return newRun({ orgId, id: newId(), steps: JSON.stringify(steps) }, new Date(), {
    status: FlowRunStatus.COMPLETED,
    chatId: newId(),
    contactId,
    requestId: newId(),
    eventId: newId(),
    payload: JSON.stringify({ email: 'ann@example.com' }),
  });
}

describe('flows: erasing a contact (decision 0171)', () => {
  it('counts the kinds docs/erasure.md lists for it, in that order', () => {
    expect(FLOWS_CONTACT_ROWS.kinds).to.deep.equal(documentedErasureKinds('flows'));
  });

  const url = testDbUrl('flows_erasure');
  let dataSource: DataSource;

  before(async () => {
    dataSource = await openDataSource({ ...flowsData, url }, { migrate: true });
  });
  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  const erase = (orgId: string, contactId: string) =>
    dataSource.transaction((manager) => FLOWS_CONTACT_ROWS.erase(manager, orgId, contactId));

  it("previews and deletes the contact's runs with their payloads, not another contact's or org's", async () => {
    const orgId = newId();
    const contactId = newId();
    const otherOrgId = newId();
    await dataSource.manager.insert(RunRow, [
      run(orgId, contactId),
      run(orgId, contactId),
      run(orgId, newId()),
      run(orgId, null),
      run(otherOrgId, contactId),
    ]);
    expect(await FLOWS_CONTACT_ROWS.count(dataSource.manager, orgId, contactId)).to.deep.equal([
      { kind: 'flow_runs', count: 2 },
    ]);
    expect(await erase(orgId, contactId)).to.deep.equal([{ kind: 'flow_runs', count: 2 }]);
    expect(await dataSource.manager.countBy(RunRow, { orgId })).to.equal(2);
    expect(await dataSource.manager.countBy(RunRow, { orgId: otherOrgId })).to.equal(1);
    expect(await erase(orgId, contactId), 'erasing again').to.deep.equal([{ kind: 'flow_runs', count: 0 }]);
  });

  it('stops a run in progress at its next step: nothing more is sent and the run is not written back', async () => {
    const orgId = newId();
    const contactId = newId();
    const inProgress = { ...run(orgId, contactId, [send('first'), send('second')]), status: FlowRunStatus.QUEUED };
    await dataSource.manager.insert(RunRow, inProgress);
    const sent: string[] = [];
    let entered = false;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const none = async () => undefined;
    const actions: StepActions = {
      sendMessage: async (_org, _chat, text) => {
        sent.push(text);
        entered = true;
        await gate;
      },
      closeChat: none,
      assign: none,
      addLabel: none,
      setContactAttribute: none,
    };
    const runner = new Runner(dataSource, actions, createLogger('flows-erasure-test', 'silent'), 20);
    runner.start();
    try {
      await eventually(() => Promise.resolve(entered));
      expect(await erase(orgId, contactId)).to.deep.equal([{ kind: 'flow_runs', count: 1 }]);
      release();
    } finally {
      await runner.stop();
    }
    expect(sent).to.deep.equal(['first']);
    expect(await dataSource.manager.countBy(RunRow, { id: inProgress.id })).to.equal(0);
  });
});

describe('FlowsApp as an erasure participant', () => {
  let app: FlowsApp;

  before(async () => {
    app = new FlowsApp(flowsConfig(testEnv('flows_participant')), { serveHttp: false });
    await app.start();
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  it("answers PreviewErasure, erases on contact.erase_requested and confirms what it erased, for the principal's org", async () => {
    const orgId = newId();
    const contactId = newId();
    await app.dataSource.manager.insert(RunRow, [
      run(orgId, contactId),
      run(orgId, contactId),
      run(newId(), contactId),
    ]);
    const { preview, confirmed } = await participantRoundTrip(app, testErasure(orgId, contactId));
    expect(preview).to.deep.equal([{ kind: 'flow_runs', count: 2 }]);
    expect(confirmed).to.deep.equal(preview);
    expect(await app.dataSource.manager.countBy(RunRow, { orgId, contactId })).to.equal(0);
  });
});
