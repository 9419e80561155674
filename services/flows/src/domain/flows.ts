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
import { firstStranger, referencesOf, strangerMessage, type OrgDirectory } from './references';

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
    private readonly directory: OrgDirectory,
  ) {}

  /**
   * Every id the input stores names an object of the org: NOT_FOUND naming its field otherwise, worded the same for
   * another org's id and an unknown one (docs/decisions/0042). The owners are asked before the transaction, never in it.
   */
  private async requireOwnReferences(orgId: string, connectionId: string | null, steps: FlowStep[]): Promise<void> {
    const stranger = await firstStranger(this.directory, orgId, referencesOf(connectionId, steps));
    if (stranger) throw new NotFound(strangerMessage(stranger, 'now'), { field: stranger.field });
  }

  private scope(principal: Principal): string {
    requireMemberSession(principal);
    return requireOrg(principal);
  }

  async create(principal: Principal, input: FlowInput): Promise<FlowRow> {
    const orgId = this.scope(principal);
    const name = validName(input.name);
    const trigger = triggerOf(input);
    const steps = validSteps(input.steps);
    await this.requireOwnReferences(orgId, trigger.connectionId, steps);
    const at = now();
    const row: FlowRow = {
      id: newId(at),
      orgId,
      name,
      status: FlowStatus.DRAFT,
      ...trigger,
      steps: JSON.stringify(steps),
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
    const trigger = input.trigger ? triggerOf(input) : undefined;
    const steps = input.replaceSteps || input.steps.length ? validSteps(input.steps) : undefined;
    await this.requireOwnReferences(orgId, trigger?.connectionId ?? null, steps ?? []);
    return this.change(principal, id, (row) => {
      if (input.name !== undefined) row.name = validName(input.name);
      if (trigger) Object.assign(row, trigger);
      if (steps !== undefined) row.steps = JSON.stringify(steps);
      row.version += 1;
    });
  }

  /**
   * A draft may have been written before its assignee was removed from the org or its connection deleted: publishing
   * it is FAILED_PRECONDITION naming the field (a published flow whose assignee is removed later fails its runs at
   * that step instead; one whose connection is deleted is never triggered again).
   */
  async publish(principal: Principal, id: string): Promise<FlowRow> {
    const orgId = this.scope(principal);
    const current = await findFlow(this.dataSource.manager, orgId, id);
    const references = referencesOf(current.connectionId, JSON.parse(current.steps) as FlowStep[]);
    const stranger = await firstStranger(this.directory, orgId, references);
    if (stranger) throw new FailedPrecondition(strangerMessage(stranger, 'since'), { field: stranger.field });
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
