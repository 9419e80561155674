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

function validSteps(steps: FlowStep[]): string {
  if (steps.length > MAX_STEPS) throw new InvalidArgument(`a flow has at most ${MAX_STEPS} steps`, { field: 'steps' });
  return JSON.stringify(steps.map(validStep));
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
  ) {}

  private scope(principal: Principal): string {
    requireMemberSession(principal);
    return requireOrg(principal);
  }

  async create(principal: Principal, input: FlowInput): Promise<FlowRow> {
    const orgId = this.scope(principal);
    const at = now();
    const row: FlowRow = {
      id: newId(at),
      orgId,
      name: validName(input.name),
      status: FlowStatus.DRAFT,
      ...triggerOf(input),
      steps: validSteps(input.steps),
      version: 1,
      createdAt: at,
      updatedAt: at,
      publishedAt: null,
    };
    await this.dataSource.manager.insert(FlowRow, row);
    return row;
  }

  /** Edits apply to runs started afterwards (runs keep the steps they started with). */
  update(principal: Principal, id: string, input: FlowInput): Promise<FlowRow> {
    return this.change(principal, id, (row) => {
      if (input.name !== undefined) row.name = validName(input.name);
      if (input.trigger) Object.assign(row, triggerOf(input));
      if (input.replaceSteps || input.steps.length) row.steps = validSteps(input.steps);
      row.version += 1;
    });
  }

  publish(principal: Principal, id: string): Promise<FlowRow> {
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
