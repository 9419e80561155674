import { implement, pageLimit, requireOrg, requireSystem, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { FlowsServiceService, type FlowInput } from '@svc/proto/flows/v1';
import type { Flows } from '../domain/flows';
import type { Runs } from '../domain/runs';
import { flowView, runView } from '../domain/views';

const EMPTY: FlowInput = { steps: [], replaceSteps: false };
const DEFAULT_PAGE_SIZE = 30;

export function flowsService(
  domain: { flows: Flows; runs: Runs; contactOfChat: (orgId: string, chatId: string) => Promise<string> },
  deps: ImplementDeps,
) {
  const { flows, runs } = domain;
  const handlers: ServiceHandlers<typeof FlowsServiceService> = {
    createFlow: async (request, { principal }) => flowView(await flows.create(principal, request.input ?? EMPTY)),
    updateFlow: async (request, { principal }) =>
      flowView(await flows.update(principal, request.flowId, request.input ?? EMPTY)),
    publishFlow: async (request, { principal }) => flowView(await flows.publish(principal, request.flowId)),
    unpublishFlow: async (request, { principal }) => flowView(await flows.unpublish(principal, request.flowId)),
    listFlows: async (_request, { principal }) => ({ flows: (await flows.list(principal)).map(flowView) }),
    getFlow: async (request, { principal }) => flowView(await flows.get(principal, request.flowId)),
    listFlowRuns: async (request, { principal }) => {
      const page = await runs.list(principal, request.flowId, {
        cursor: request.input?.cursor || undefined,
        isBefore: request.input?.isBefore,
        limit: pageLimit(request.input?.limit, DEFAULT_PAGE_SIZE, 'input.limit'),
      });
      return { ...page, data: page.data.map(runView) };
    },
    startFlowForChat: async (request, { principal }) =>
      runView(await runs.startForChat(principal, request.chatId, request.flowId, domain.contactOfChat)),
    stopFlowForChat: async (request, { principal }) => ({
      stopped: await runs.stopForChat(principal, request.chatId, request.flowId, domain.contactOfChat),
    }),
    listWebhookFlows: async (request, { principal }) => {
      requireSystem(principal);
      const found = await flows.webhookFlows(requireOrg(principal), request.connectionId);
      return { flows: found.map((flow) => ({ flowId: flow.id, name: flow.name })) };
    },
  };
  return implement('flows', FlowsServiceService, handlers, deps);
}
