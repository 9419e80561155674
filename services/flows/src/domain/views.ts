import { toIso, toIsoOrUndefined } from '@svc/kit';
import type { Flow, FlowRun, FlowStep } from '@svc/proto/flows/v1';
import type { FlowRow, RunRow } from '../entities';

export function flowView(row: FlowRow): Flow {
  return {
    _id: row.id,
    name: row.name,
    status: row.status,
    trigger: { type: row.triggerType, connectionId: row.connectionId ?? undefined },
    steps: JSON.parse(row.steps) as FlowStep[],
    version: row.version,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    publishedAt: toIsoOrUndefined(row.publishedAt),
  };
}

export function runView(row: RunRow): FlowRun {
  return {
    _id: row.id,
    flowId: row.flowId,
    status: row.status,
    trigger: row.trigger,
    chatId: row.chatId ?? undefined,
    contactId: row.contactId ?? undefined,
    requestId: row.requestId ?? undefined,
    stepIndex: row.stepIndex,
    error: row.error ?? undefined,
    createdAt: toIso(row.createdAt),
    finishedAt: toIsoOrUndefined(row.finishedAt),
  };
}
