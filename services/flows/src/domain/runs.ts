import { In, type DataSource } from 'typeorm';
import {
  FailedPrecondition,
  InvalidArgument,
  isDuplicateKeyError,
  isId,
  keysetPage,
  newId,
  now,
  requireMemberSession,
  requireOrg,
  requireScope,
  type Page,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { FlowRunStatus, FlowStatus, FlowTriggerType } from '@svc/proto/flows/v1';
import type { WebhookReceivedEvent } from '@svc/proto/events/v1';
import { FlowRow, ProcessedEventRow, RunRow } from '../entities';
import { findFlow } from './flows';

const ACTIVE = [FlowRunStatus.QUEUED, FlowRunStatus.RUNNING, FlowRunStatus.WAITING];

function newRun(flow: FlowRow, at: Date, fields: Partial<RunRow>): RunRow {
  return {
    id: newId(at),
    orgId: flow.orgId,
    flowId: flow.id,
    status: FlowRunStatus.QUEUED,
    trigger: FlowTriggerType.WEBHOOK_RECEIVED,
    chatId: null,
    contactId: null,
    requestId: null,
    eventId: null,
    payload: '{}',
    steps: flow.steps,
    stepIndex: 0,
    resumeAt: at,
    error: null,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
    ...fields,
  };
}

export class Runs {
  constructor(
    private readonly dataSource: DataSource,
    private readonly wake: () => void,
  ) {}

  /**
   * One run per flow the ingress named for this accepted request, exactly once: the event id goes into
   * processed_events in the same transaction as the runs, so a redelivered event finds it and starts nothing.
   * Returns the number of runs created.
   */
  async startFromWebhook(eventId: string, orgId: string, event: WebhookReceivedEvent): Promise<number> {
    const created = await this.dataSource
      .transaction(async (manager) => {
        if (await manager.existsBy(ProcessedEventRow, { eventId })) return 0;
        const at = now();
        await manager.insert(ProcessedEventRow, { eventId, processedAt: at });
        const ids = event.flowIds.filter(isId);
        const flows = ids.length ? await manager.findBy(FlowRow, { orgId, id: In(ids) }) : [];
        const runs = flows.map((flow) =>
          newRun(flow, at, {
            chatId: event.chatId || null,
            contactId: event.contactId || null,
            requestId: isId(event.requestId) ? event.requestId : null,
            eventId,
            payload: event.payloadJson || '{}',
          }),
        );
        if (runs.length) await manager.insert(RunRow, runs);
        return runs.length;
      })
      .catch((error: unknown) => {
        // A concurrent consumer of a redelivery committed the same event first.
        if (isDuplicateKeyError(error)) return 0;
        throw error;
      });
    if (created) this.wake();
    return created;
  }

  /** apiStartFlowForChat (CONVERSATIONS_MANAGE): runs a published flow in a chat. */
  async startForChat(
    principal: Principal,
    chatId: string,
    flowId: string,
    contactOf: (orgId: string, chatId: string) => Promise<string>,
  ): Promise<RunRow> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    if (!isId(chatId)) throw new InvalidArgument('chatId must be a 24-character hex id', { field: 'chatId' });
    const flow = await findFlow(this.dataSource.manager, orgId, flowId);
    if (flow.status !== FlowStatus.PUBLISHED) throw new FailedPrecondition('the flow is not published');
    const contactId = await contactOf(orgId, chatId);
    const run = newRun(flow, now(), {
      trigger: FlowTriggerType.STARTED_FOR_CHAT,
      chatId,
      contactId: contactId || null,
    });
    await this.dataSource.manager.insert(RunRow, run);
    this.wake();
    return run;
  }

  /** apiStopFlowForChat: stops the flow's active runs in the chat; returns how many. */
  async stopForChat(principal: Principal, chatId: string, flowId: string): Promise<number> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    if (!isId(chatId)) throw new InvalidArgument('chatId must be a 24-character hex id', { field: 'chatId' });
    const flow = await findFlow(this.dataSource.manager, orgId, flowId);
    const at = now();
    const result = await this.dataSource.manager.update(
      RunRow,
      { orgId, flowId: flow.id, chatId, status: In(ACTIVE) },
      { status: FlowRunStatus.STOPPED, finishedAt: at, updatedAt: at },
    );
    return result.affected ?? 0;
  }

  /** Newest first (dashboard only, like the rest of flow authoring). */
  async list(principal: Principal, flowId: string, page: PageRequest): Promise<Page<RunRow>> {
    requireMemberSession(principal);
    const orgId = requireOrg(principal);
    const flow = await findFlow(this.dataSource.manager, orgId, flowId);
    const query = this.dataSource
      .getRepository(RunRow)
      .createQueryBuilder('r')
      .where('r.orgId = :orgId AND r.flowId = :flowId', { orgId, flowId: flow.id });
    return keysetPage(
      query,
      { at: 'r.createdAt', id: 'r.id' },
      (r) => ({ at: r.createdAt, id: r.id }),
      page,
      'descending',
    );
  }
}
