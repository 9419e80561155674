import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  FailedPrecondition,
  InvalidArgument,
  entitySql,
  existingIds,
  isDuplicateKeyError,
  isId,
  keysetPage,
  newId,
  now,
  captureRequestContext,
  type RequestContext,
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

/**
 * One `webhook.received` event as consumed: its id (the idempotency key), its org, its payload and the context of the
 * request that recorded it.
 */
export interface WebhookDelivery {
  eventId: string;
  orgId: string;
  event: WebhookReceivedEvent;
  requestContext: RequestContext;
}

function storedContext(context: RequestContext): string | null {
  return Object.keys(context).length ? JSON.stringify(context) : null;
}

/** A queued run of the flow, nothing known about its trigger until `fields` says (the tests build their runs with it). */
export function newRun(flow: Pick<FlowRow, 'orgId' | 'id' | 'steps'>, at: Date, fields: Partial<RunRow>): RunRow {
  return {
    id: newId(at),
    orgId: flow.orgId,
    flowId: flow.id,
    status: FlowRunStatus.QUEUED,
    trigger: FlowTriggerType.WEBHOOK_RECEIVED,
    chatId: null,
    contactId: null,
    requestId: null,
    requestContext: null,
    eventId: null,
    payload: '{}',
    steps: flow.steps,
    stepIndex: 0,
    resumeAt: at,
    error: null,
    stepAttempts: 0,
    stepFailingSince: null,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
    ...fields,
  };
}

/**
 * A flow unpublished between the request's acceptance and its consumption (a backlog) runs no step: its run is
 * recorded as STOPPED, so the 202 that named the flow stays traceable in flowRuns (docs/decisions/0010).
 */
function unpublishedMeanwhile(at: Date): Partial<RunRow> {
  return { status: FlowRunStatus.STOPPED, error: 'the flow was unpublished before this run started', finishedAt: at };
}

export class Runs {
  constructor(
    private readonly dataSource: DataSource,
    private readonly wake: () => void,
  ) {}

  /**
   * One run per flow the ingress named for each accepted request, exactly once per event id: the event ids go into
   * processed_events in the same transaction as the runs, so a redelivered event finds its id and starts nothing.
   * A batch (the consumer's backlog) is one transaction; if it collides with a concurrent consumer that committed
   * some of the same events meanwhile, each event is retried in its own. Returns the number of runs created.
   */
  async startFromWebhooks(deliveries: WebhookDelivery[]): Promise<number> {
    if (!deliveries.length) return 0;
    let created: number;
    try {
      created = await this.dataSource.transaction((manager) => this.insertRuns(manager, deliveries));
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Another consumer of a redelivery committed (some of) these events first.
      if (deliveries.length === 1) return 0;
      created = 0;
      for (const delivery of deliveries) created += await this.startFromWebhooks([delivery]);
      return created;
    }
    if (created) this.wake();
    return created;
  }

  /** Statements written from the entity metadata (kit `entitySql`): this runs for every accepted webhook. */
  private async insertRuns(manager: EntityManager, deliveries: WebhookDelivery[]): Promise<number> {
    const at = now();
    const processed = new Set(
      await existingIds(
        manager,
        ProcessedEventRow,
        deliveries.map((d) => d.eventId),
      ),
    );
    // Redeliveries start nothing; an event delivered twice within the batch counts once.
    const fresh: WebhookDelivery[] = [];
    for (const delivery of deliveries) {
      if (processed.has(delivery.eventId)) continue;
      processed.add(delivery.eventId);
      fresh.push(delivery);
    }
    if (!fresh.length) return 0;
    await entitySql(this.dataSource, ProcessedEventRow).insert(
      manager,
      fresh.map((d) => ({ eventId: d.eventId, processedAt: at })),
    );
    const flowIdsOf = (d: WebhookDelivery) => [...new Set(d.event.flowIds.filter(isId))];
    const ids = [...new Set(fresh.flatMap(flowIdsOf))];
    const flowSql = entitySql(this.dataSource, FlowRow);
    const flows = ids.length
      ? await flowSql.select(manager, `WHERE ${flowSql.column('id')} IN (${ids.map(() => '?').join(', ')})`, ids)
      : [];
    const byId = new Map(flows.map((flow) => [flow.id, flow]));
    const runs: RunRow[] = [];
    for (const delivery of fresh) {
      const { eventId, orgId, event, requestContext } = delivery;
      for (const id of flowIdsOf(delivery)) {
        const flow = byId.get(id);
        // Only flows of the event's own org: an id never reaches into another org.
        if (flow?.orgId !== orgId) continue;
        runs.push(
          newRun(flow, at, {
            chatId: event.chatId || null,
            contactId: event.contactId || null,
            requestId: isId(event.requestId) ? event.requestId : null,
            eventId,
            requestContext: storedContext(requestContext),
            payload: event.payloadJson || '{}',
            ...(flow.status === FlowStatus.PUBLISHED ? {} : unpublishedMeanwhile(at)),
          }),
        );
      }
    }
    await entitySql(this.dataSource, RunRow).insert(manager, runs);
    return runs.length;
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
    // Both ids are looked up before the flow's state is judged: another org's chat is NOT_FOUND, whatever the flow.
    const contactId = await contactOf(orgId, chatId);
    if (flow.status !== FlowStatus.PUBLISHED) throw new FailedPrecondition('the flow is not published');
    const run = newRun(flow, now(), {
      trigger: FlowTriggerType.STARTED_FOR_CHAT,
      requestContext: storedContext(captureRequestContext()),
      chatId,
      contactId: contactId || null,
    });
    await this.dataSource.manager.insert(RunRow, run);
    this.wake();
    return run;
  }

  /** apiStopFlowForChat: stops the flow's active runs in the chat; returns how many. */
  async stopForChat(
    principal: Principal,
    chatId: string,
    flowId: string,
    contactOf: (orgId: string, chatId: string) => Promise<string>,
  ): Promise<number> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    if (!isId(chatId)) throw new InvalidArgument('chatId must be a 24-character hex id', { field: 'chatId' });
    const flow = await findFlow(this.dataSource.manager, orgId, flowId);
    // Another org's chat is NOT_FOUND like an unknown one (the inbox owns chats), never "nothing to stop".
    await contactOf(orgId, chatId);
    const at = now();
    const result = await this.dataSource.manager.update(
      RunRow,
      { orgId, flowId: flow.id, chatId, status: In(ACTIVE) },
      // An active run's error is only ever a failure it was about to retry (decision 0070): no longer true.
      { status: FlowRunStatus.STOPPED, error: null, finishedAt: at, updatedAt: at },
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
