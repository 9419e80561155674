import type { NewEvent } from '@svc/kit';
import { FlowStatus, FlowTriggerType } from '@svc/proto/flows/v1';
import type { FlowRow } from '../entities';

export const FLOWS_TOPIC = 'svc.flows.flows.v1';

type FlowState = Pick<FlowRow, 'id' | 'orgId' | 'status' | 'triggerType' | 'connectionId'>;

function feeds(flow: FlowState): string | undefined {
  return flow.status === FlowStatus.PUBLISHED && flow.triggerType === FlowTriggerType.WEBHOOK_RECEIVED
    ? (flow.connectionId ?? undefined)
    : undefined;
}

/**
 * The event an authoring change emits, if any: one whenever the flow is or was published, so the ingress replicas can
 * drop the flow lists they cached for the connections concerned (docs/decisions/0015). Drafts edited as drafts emit
 * nothing: no connection's published set changed.
 */
export function flowChangedEvent(before: FlowState, after: FlowState): NewEvent | undefined {
  const wasPublished = before.status === FlowStatus.PUBLISHED;
  const isPublished = after.status === FlowStatus.PUBLISHED;
  if (!wasPublished && !isPublished) return undefined;
  const type = !wasPublished ? 'flow.published' : !isPublished ? 'flow.unpublished' : 'flow.updated';
  const connectionIds = [...new Set([feeds(before), feeds(after)].filter((id): id is string => !!id))];
  return {
    topic: FLOWS_TOPIC,
    key: after.id,
    type,
    orgId: after.orgId,
    payload: { flow: { flowId: after.id, connectionIds } },
  };
}
