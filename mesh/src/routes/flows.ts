import type { Route } from './route';

type Json = Record<string, unknown>;

const flowOutput = (flow: Json): Json => ({ ...flow, steps: flow.steps ?? [] });

/** `steps` given on update replaces them (the proto needs the flag: an empty list is also a value). */
function updateInput(input: unknown): Json {
  const value = (input ?? {}) as Json;
  return { ...value, steps: value.steps ?? [], replaceSteps: Array.isArray(value.steps) };
}

export const flowRoutes: Record<string, Route> = {
  flows: {
    service: 'flows',
    method: 'ListFlows',
    response: (r) => ((r.flows as Json[] | undefined) ?? []).map(flowOutput),
  },
  flow: { service: 'flows', method: 'GetFlow', response: flowOutput },
  flowRuns: { service: 'flows', method: 'ListFlowRuns' },
  createFlow: { service: 'flows', method: 'CreateFlow', response: flowOutput },
  updateFlow: {
    service: 'flows',
    method: 'UpdateFlow',
    request: (a) => ({ flowId: a.flowId, input: updateInput(a.input) }),
    response: flowOutput,
  },
  publishFlow: { service: 'flows', method: 'PublishFlow', response: flowOutput },
  unpublishFlow: { service: 'flows', method: 'UnpublishFlow', response: flowOutput },
  apiStartFlowForChat: { service: 'flows', method: 'StartFlowForChat' },
  apiStopFlowForChat: { service: 'flows', method: 'StopFlowForChat', response: (r) => Number(r.stopped ?? 0) > 0 },
};
