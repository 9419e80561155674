import type { DataSource, EntityManager } from 'typeorm';
import {
  FailedPrecondition,
  InvalidArgument,
  enqueueEvents,
  NotFound,
  isId,
  newId,
  now,
  requireMemberSession,
  requireOrg,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { FlowStatus, FlowStepType, FlowTriggerType, type FlowInput, type FlowStep } from '@svc/proto/flows/v1';
import { FlowRow } from '../entities';
import { flowChangedEvent } from './events';

export const MAX_STEPS = 50;
const MAX_WAIT_SECONDS = 30 * 24 * 3600;

export async function findFlow(manager: EntityManager, orgId: string, id: string): Promise<FlowRow> {
  if (!isId(id)) throw new InvalidArgument('flowId must be a 24-character hex id', { field: 'flowId' });
  const row = await manager.findOneBy(FlowRow, { id, orgId });
  if (!row) throw new NotFound('flow not found', { field: 'flowId' });
  return row;
}

function validStep(step: FlowStep, index: number): FlowStep {
  const field = `steps[${index}]`;
  const need = (value: string | undefined, what: string) => {
    if (!value?.trim()) throw new InvalidArgument(`${field} needs ${what}`, { field });
    if (value.length > 10_000) throw new InvalidArgument(`${field}: ${what} is too long`, { field });
  };
  switch (step.type) {
    case FlowStepType.SEND_MESSAGE:
    case FlowStepType.ADD_NOTE:
      need(step.text, 'text');
      break;
    case FlowStepType.SET_CONTACT_ATTRIBUTE:
      need(step.attributeKey, 'attributeKey');
      break;
    case FlowStepType.ADD_LABEL:
      if (!isId(step.label)) throw new InvalidArgument(`${field} needs a label id`, { field });
      break;
    case FlowStepType.ASSIGN:
      if (!isId(step.assigneeId)) throw new InvalidArgument(`${field} needs an assigneeId`, { field });
      break;
    case FlowStepType.CLOSE_CHAT:
      break;
    case FlowStepType.WAIT:
      if (!step.waitSeconds || step.waitSeconds < 1 || step.waitSeconds > MAX_WAIT_SECONDS)
        throw new InvalidArgument(`${field} needs waitSeconds from 1 to ${MAX_WAIT_SECONDS}`, { field });
      break;
    default:
      throw new InvalidArgument(`${field} has no known type`, { field });
  }
  return step;
}

function validSteps(steps: FlowStep[]): FlowStep[] {
  if (steps.length > MAX_STEPS) throw new InvalidArgument(`a flow has at most ${MAX_STEPS} steps`, { field: 'steps' });
  return steps.map(validStep);
}

/** Who may be assigned work: identity's members of the org (`FindMembers`). */
export interface MemberDirectory {
  /** The ids among `memberIds` that are members of the org now (a removed member, or another org's, is not). */
  membersOf(orgId: string, memberIds: string[]): Promise<string[]>;
}

/**
 * The assign steps whose assignee is not a member of the org now, by index: one question to identity per flow
 * written or published, none for a flow without assign steps.
 */
async function strangerSteps(members: MemberDirectory, orgId: string, steps: FlowStep[]): Promise<number[]> {
  const assigns = steps.flatMap((step, index) =>
    step.type === FlowStepType.ASSIGN && step.assigneeId ? [{ index, assigneeId: step.assigneeId }] : [],
  );
  if (!assigns.length) return [];
  const found = new Set(await members.membersOf(orgId, [...new Set(assigns.map((a) => a.assigneeId))]));
  return assigns.filter((a) => !found.has(a.assigneeId)).map((a) => a.index);
}

function validName(name: string | undefined): string {
  const value = name?.trim() ?? '';
  if (!value || value.length > 200) throw new InvalidArgument('name must be 1 to 200 characters', { field: 'name' });
  return value;
}

function triggerOf(input: FlowInput): Pick<FlowRow, 'triggerType' | 'connectionId'> {
  const type = input.trigger?.type;
  if (type === FlowTriggerType.WEBHOOK_RECEIVED) {
    const connectionId = input.trigger?.connectionId ?? '';
    if (!isId(connectionId))
      throw new InvalidArgument('a Webhook Received trigger names its connection', { field: 'trigger.connectionId' });
    return { triggerType: type, connectionId };
  }
  if (type === FlowTriggerType.STARTED_FOR_CHAT) return { triggerType: type, connectionId: null };
  throw new InvalidArgument('trigger.type must be WEBHOOK_RECEIVED or STARTED_FOR_CHAT', { field: 'trigger.type' });
}

/** Flow authoring: dashboard member sessions only (spec 4.2: flow authoring is not available to keys). */
export class Flows {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly members: MemberDirectory,
  ) {}

  /**
   * Steps as written: well-formed, and every assignee a member of the org (NOT_FOUND naming the step otherwise, as
   * for any id of the input that names nothing of the org). Identity is asked before the transaction, never in it.
   */
  private async authoredSteps(orgId: string, steps: FlowStep[]): Promise<string> {
    const valid = validSteps(steps);
    const [stranger] = await strangerSteps(this.members, orgId, valid);
    if (stranger !== undefined)
      throw new NotFound(`steps[${stranger}] assigns someone who is not a member of this org`, {
        field: `steps[${stranger}]`,
      });
    return JSON.stringify(valid);
  }

  private scope(principal: Principal): string {
    requireMemberSession(principal);
    return requireOrg(principal);
  }

  async create(principal: Principal, input: FlowInput): Promise<FlowRow> {
    const orgId = this.scope(principal);
    const name = validName(input.name);
    const trigger = triggerOf(input);
    const steps = await this.authoredSteps(orgId, input.steps);
    const at = now();
    const row: FlowRow = {
      id: newId(at),
      orgId,
      name,
      status: FlowStatus.DRAFT,
      ...trigger,
      steps,
      version: 1,
      createdAt: at,
      updatedAt: at,
      publishedAt: null,
    };
    await this.dataSource.manager.insert(FlowRow, row);
    return row;
  }

  /** Edits apply to runs started afterwards (runs keep the steps they started with). */
  async update(principal: Principal, id: string, input: FlowInput): Promise<FlowRow> {
    const orgId = this.scope(principal);
    const steps = input.replaceSteps || input.steps.length ? await this.authoredSteps(orgId, input.steps) : undefined;
    return this.change(principal, id, (row) => {
      if (input.name !== undefined) row.name = validName(input.name);
      if (input.trigger) Object.assign(row, triggerOf(input));
      if (steps !== undefined) row.steps = steps;
      row.version += 1;
    });
  }

  /**
   * A draft may have been written before its assignee was removed from the org: publishing it is FAILED_PRECONDITION
   * naming the step (a published flow whose assignee is removed later fails its runs at that step instead).
   */
  async publish(principal: Principal, id: string): Promise<FlowRow> {
    const orgId = this.scope(principal);
    const current = await findFlow(this.dataSource.manager, orgId, id);
    const [stranger] = await strangerSteps(this.members, orgId, JSON.parse(current.steps) as FlowStep[]);
    if (stranger !== undefined)
      throw new FailedPrecondition(
        `steps[${stranger}] assigns someone who is no longer a member of this org; choose another assignee`,
        { field: `steps[${stranger}]` },
      );
    return this.change(principal, id, (row, at) => {
      if (!(JSON.parse(row.steps) as FlowStep[]).length)
        throw new FailedPrecondition('a flow needs at least one step to be published');
      row.status = FlowStatus.PUBLISHED;
      row.publishedAt = at;
    });
  }

  unpublish(principal: Principal, id: string): Promise<FlowRow> {
    return this.change(principal, id, (row) => {
      row.status = FlowStatus.DRAFT;
    });
  }

  list(principal: Principal): Promise<FlowRow[]> {
    const orgId = this.scope(principal);
    return this.dataSource.manager.find(FlowRow, { where: { orgId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  get(principal: Principal, id: string): Promise<FlowRow> {
    return findFlow(this.dataSource.manager, this.scope(principal), id);
  }

  /** The published flows a connection feeds (SYSTEM callers: webhook-ingress, per request). */
  webhookFlows(orgId: string, connectionId: string): Promise<FlowRow[]> {
    if (!isId(connectionId)) return Promise.resolve([]);
    return this.dataSource.manager.find(FlowRow, {
      where: { orgId, connectionId, status: FlowStatus.PUBLISHED, triggerType: FlowTriggerType.WEBHOOK_RECEIVED },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  private async change(principal: Principal, id: string, apply: (row: FlowRow, at: Date) => void): Promise<FlowRow> {
    const orgId = this.scope(principal);
    const changed = await this.dataSource.transaction(async (manager) => {
      const row = await findFlow(manager, orgId, id);
      const before = { ...row };
      const at = now();
      apply(row, at);
      row.updatedAt = at;
      await manager.save(FlowRow, row);
      const event = flowChangedEvent(before, row);
      if (event) await enqueueEvents(manager, [event], at);
      return row;
    });
    this.relay().nudge();
    return changed;
  }
}
