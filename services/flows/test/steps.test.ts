import { expect } from 'chai';
import { FailedPrecondition, InvalidArgument, NotFound, newId } from '@svc/kit';
import { FlowStepType } from '@svc/proto/flows/v1';
import { runStep, StepError, type RunContext, type StepActions } from '../src/domain/steps';

/** Records what a step asked of the other services. */
function recordingActions() {
  const calls: { action: string; args: unknown[] }[] = [];
  const record =
    (action: string) =>
    async (...args: unknown[]) => {
      calls.push({ action, args });
    };
  const actions: StepActions = {
    sendMessage: record('sendMessage'),
    closeChat: record('closeChat'),
    assign: record('assign'),
    addLabel: record('addLabel'),
    setContactAttribute: record('setContactAttribute'),
  };
  return { actions, calls };
}

describe('runStep', () => {
  const context = (chatId: string | null = newId()): RunContext => ({
    runId: newId(),
    stepIndex: 0,
    orgId: newId(),
    chatId,
    contactId: newId(),
    payload: {},
  });

  describe('runStep ADD_LABEL', () => {
    it("returns next after adding the label to the run's chat in the run's org", async () => {
      const { actions, calls } = recordingActions();
      const run = context();
      const label = newId();
      expect(await runStep({ type: FlowStepType.ADD_LABEL, label }, run, actions)).to.deep.equal({ kind: 'next' });
      expect(calls).to.deep.equal([{ action: 'addLabel', args: [run.orgId, run.chatId, label] }]);
    });

    it('fails the step when the run has no chat', async () => {
      const { actions, calls } = recordingActions();
      const error = await runStep({ type: FlowStepType.ADD_LABEL, label: newId() }, context(null), actions).catch(
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(StepError);
      expect(calls).to.deep.equal([]);
    });

    it('fails the step when it names no label id (a run snapshotted before authoring checked the form)', async () => {
      const { actions, calls } = recordingActions();
      const error = await runStep({ type: FlowStepType.ADD_LABEL, label: 'vip' }, context(), actions).catch(
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(StepError);
      expect((error as StepError).message).to.equal('the step names no label id');
      expect(calls).to.deep.equal([]);
    });

    it("fails the step naming the label when the inbox finds no such label of the run's org", async () => {
      const { actions } = recordingActions();
      const label = newId();
      actions.addLabel = async () => {
        throw new NotFound('label not found', { field: 'labelId' });
      };
      const error = await runStep({ type: FlowStepType.ADD_LABEL, label }, context(), actions).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(StepError);
      expect((error as StepError).message).to.equal(`the label ${label} is not a label of the org`);
    });

    it("fails the step with the inbox's reason when it cannot apply the label (archived)", async () => {
      const { actions } = recordingActions();
      const reason = 'an archived label cannot be applied; restore it first';
      actions.addLabel = async () => {
        throw new FailedPrecondition(reason, { field: 'labelId' });
      };
      const error = await runStep({ type: FlowStepType.ADD_LABEL, label: newId() }, context(), actions).catch(
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(StepError);
      expect((error as StepError).message).to.equal(reason);
    });

    it('passes a downstream failure on to the runner', async () => {
      const { actions } = recordingActions();
      const refused = new Error('an archived label cannot be applied');
      actions.addLabel = () => Promise.reject(refused);
      const error = await runStep({ type: FlowStepType.ADD_LABEL, label: newId() }, context(), actions).catch(
        (e: unknown) => e,
      );
      expect(error).to.equal(refused);
    });
  });

  describe('runStep SET_CONTACT_ATTRIBUTE', () => {
    const step = { type: FlowStepType.SET_CONTACT_ATTRIBUTE, attributeKey: 'seats', attributeValue: 'many' };

    it("returns next after writing the rendered text to the run's contact", async () => {
      const { actions, calls } = recordingActions();
      const run = { ...context(), payload: { order: { seats: 3 } } };
      const rendered = { ...step, attributeValue: '{{webhook.order.seats}}' };
      expect(await runStep(rendered, run, actions)).to.deep.equal({ kind: 'next' });
      expect(calls).to.deep.equal([{ action: 'setContactAttribute', args: [run.orgId, run.contactId, 'seats', '3'] }]);
    });

    it("fails the step with contacts' reason when the text does not parse as the field's type", async () => {
      const { actions } = recordingActions();
      actions.setContactAttribute = () =>
        Promise.reject(
          new InvalidArgument('customAttributes.seats must be a number', { field: 'customAttributes.seats' }),
        );
      const error = await runStep(step, context(), actions).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(StepError);
      expect((error as StepError).message).to.equal(
        'the contact attribute could not be set: customAttributes.seats must be a number',
      );
    });

    it('passes any other refusal on to the runner', async () => {
      const { actions } = recordingActions();
      const refused = new InvalidArgument('id must be a 24-character hex id', { field: 'id' });
      actions.setContactAttribute = () => Promise.reject(refused);
      expect(await runStep(step, context(), actions).catch((e: unknown) => e)).to.equal(refused);
    });
  });

  describe('runStep ASSIGN', () => {
    const failureOf = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (e: unknown) => e,
      );

    it("returns next after assigning the run's chat to the operator in the run's org", async () => {
      const { actions, calls } = recordingActions();
      const run = context();
      const assigneeId = newId();
      expect(await runStep({ type: FlowStepType.ASSIGN, assigneeId }, run, actions)).to.deep.equal({ kind: 'next' });
      expect(calls).to.deep.equal([{ action: 'assign', args: [run.orgId, run.chatId, assigneeId] }]);
    });

    it('fails the step naming the assignee when the inbox no longer finds the operator (a removed member)', async () => {
      const { actions } = recordingActions();
      actions.assign = () => Promise.reject(new NotFound('operator not found', { field: 'operatorId' }));
      const assigneeId = newId();
      const error = await failureOf(runStep({ type: FlowStepType.ASSIGN, assigneeId }, context(), actions));
      expect(error).to.be.instanceOf(StepError);
      expect((error as StepError).message).to.equal(`the assignee ${assigneeId} is no longer a member of the org`);
    });

    it('passes any other downstream failure on to the runner (the chat not found is not a vanished assignee)', async () => {
      const { actions } = recordingActions();
      const refused = new NotFound('chat not found', { field: 'chatId' });
      actions.assign = () => Promise.reject(refused);
      const error = await failureOf(runStep({ type: FlowStepType.ASSIGN, assigneeId: newId() }, context(), actions));
      expect(error).to.equal(refused);
    });
  });

  describe('runStep SEND_MESSAGE and ADD_NOTE', () => {
    it('name the run and the step as the idempotency key, so a retried step posts once', async () => {
      const { actions, calls } = recordingActions();
      const run = { ...context(), stepIndex: 3 };
      await runStep({ type: FlowStepType.SEND_MESSAGE, text: 'hi' }, run, actions);
      await runStep({ type: FlowStepType.ADD_NOTE, text: 'note' }, { ...run, stepIndex: 4 }, actions);
      expect(calls.map((c) => c.args.slice(3))).to.deep.equal([
        [false, `flow-run:${run.runId}:3`],
        [true, `flow-run:${run.runId}:4`],
      ]);
    });
  });
});
