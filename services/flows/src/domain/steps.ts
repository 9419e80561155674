import { FailedPrecondition, InvalidArgument, NotFound, isId } from '@svc/kit';
import { FlowStepType, type FlowStep } from '@svc/proto/flows/v1';
import { renderTemplate } from './template';

/** What steps do in other services (inbox, contacts), always as the run's org with a SYSTEM principal. */
export interface StepActions {
  /** `idempotencyKey` names the run's step: a retried or resumed step posts its message once (docs/decisions/0070). */
  sendMessage(orgId: string, chatId: string, text: string, internal: boolean, idempotencyKey: string): Promise<void>;
  closeChat(orgId: string, chatId: string): Promise<void>;
  /** Fails with NOT_FOUND naming `operatorId` when the operator is not a member of the org (inbox, via identity). */
  assign(orgId: string, chatId: string, operatorId: string): Promise<void>;
  /** Adds a label of the org to the thread (idempotent). */
  addLabel(orgId: string, chatId: string, labelId: string): Promise<void>;
  setContactAttribute(orgId: string, contactId: string, key: string, value: string): Promise<void>;
}

export interface RunContext {
  runId: string;
  /** The index of the step being run in the run's steps. */
  stepIndex: number;
  orgId: string;
  chatId: string | null;
  contactId: string | null;
  payload: unknown;
}

export type StepResult = { kind: 'next' } | { kind: 'wait'; seconds: number };

export class StepError extends Error {}

/** The same for every attempt at one step of one run, and for no other step. */
export const stepIdempotencyKey = (context: RunContext) => `flow-run:${context.runId}:${context.stepIndex}`;

function needChat(context: RunContext): string {
  if (!context.chatId) throw new StepError('the contact has no chat to act on');
  return context.chatId;
}

/**
 * Authoring checked the assignee, but a member can be removed after the flow was published: the inbox then refuses
 * the assignment and the run fails with a reason that says so (not the generic "a step failed in another service").
 */
async function assign(context: RunContext, assigneeId: string, actions: StepActions): Promise<void> {
  const chatId = needChat(context);
  try {
    await actions.assign(context.orgId, chatId, assigneeId);
  } catch (error) {
    if (error instanceof NotFound && error.details.field === 'operatorId')
      throw new StepError(`the assignee ${assigneeId} is no longer a member of the org`);
    throw error;
  }
}

/** Checked at run time like the assignee: the inbox refuses a label that is not the org's, or one it cannot apply. */
async function addLabel(context: RunContext, labelId: string, actions: StepActions): Promise<void> {
  const chatId = needChat(context);
  try {
    await actions.addLabel(context.orgId, chatId, labelId);
  } catch (error) {
    if (error instanceof NotFound && error.details.field === 'labelId')
      throw new StepError(`the label ${labelId} is not a label of the org`);
    // An archived label, a thread that carries all it may: the inbox's reason is the run's.
    if (error instanceof FailedPrecondition) throw new StepError(error.message);
    throw error;
  }
}

/**
 * Authoring checked that the key names a people field; at run time contacts parses the rendered text as the field's
 * type. A value that does not parse, or a field deleted since, fails the run with contacts' reason (which names the
 * field, never the value) rather than the generic "a step failed in another service" (decision 0158).
 */
async function setContactAttribute(context: RunContext, key: string, value: string, actions: StepActions) {
  if (!context.contactId) throw new StepError('the run has no contact');
  try {
    await actions.setContactAttribute(context.orgId, context.contactId, key, value);
  } catch (error) {
    if (error instanceof InvalidArgument && error.details.field === `customAttributes.${key}`)
      throw new StepError(`the contact attribute could not be set: ${error.message}`);
    throw error;
  }
}

/** Runs one step; text fields are rendered against the webhook payload first. */
export async function runStep(step: FlowStep, context: RunContext, actions: StepActions): Promise<StepResult> {
  const render = (text: string | undefined) => renderTemplate(text ?? '', context.payload);
  switch (step.type) {
    case FlowStepType.SEND_MESSAGE:
      await actions.sendMessage(
        context.orgId,
        needChat(context),
        render(step.text),
        false,
        stepIdempotencyKey(context),
      );
      return { kind: 'next' };
    case FlowStepType.ADD_NOTE:
      await actions.sendMessage(context.orgId, needChat(context), render(step.text), true, stepIdempotencyKey(context));
      return { kind: 'next' };
    case FlowStepType.SET_CONTACT_ATTRIBUTE:
      await setContactAttribute(context, (step.attributeKey ?? '').trim(), render(step.attributeValue), actions);
      return { kind: 'next' };
    case FlowStepType.ASSIGN:
      await assign(context, step.assigneeId ?? '', actions);
      return { kind: 'next' };
    case FlowStepType.CLOSE_CHAT:
      await actions.closeChat(context.orgId, needChat(context));
      return { kind: 'next' };
    case FlowStepType.WAIT:
      return { kind: 'wait', seconds: step.waitSeconds ?? 1 };
    case FlowStepType.ADD_LABEL:
      // Authoring checks the form; a run snapshotted before that check may still hold a label name.
      if (!isId(step.label)) throw new StepError('the step names no label id');
      await addLabel(context, step.label, actions);
      return { kind: 'next' };
    default:
      throw new StepError(`unknown step type ${String(step.type)}`);
  }
}
