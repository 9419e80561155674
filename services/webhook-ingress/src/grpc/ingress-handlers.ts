import { implement, pageLimit, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import {
  InboundConnectionStatus,
  WebhookIngressServiceService,
  type InboundConnectionInput,
} from '@svc/proto/webhooks/v1';
import type { Connections } from '../domain/connections';
import { connectionView, requestView } from '../domain/views';

const EMPTY: InboundConnectionInput = {};
const DEFAULT_PAGE_SIZE = 30;

export function ingressService(connections: Connections, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof WebhookIngressServiceService> = {
    createInboundConnection: async (request, { principal }) => {
      const { row, secret } = await connections.create(principal, request.input ?? EMPTY);
      return connectionView(row, secret);
    },
    updateInboundConnection: async (request, { principal }) =>
      connectionView(await connections.update(principal, request.id, request.input ?? EMPTY)),
    listInboundConnections: async (_request, { principal }) => ({
      connections: (await connections.list(principal)).map((row) => connectionView(row)),
    }),
    getInboundConnection: async (request, { principal }) =>
      connectionView(await connections.get(principal, request.id)),
    rotateInboundConnectionSecret: async (request, { principal }) => {
      const { row, secret } = await connections.rotate(principal, request.id);
      return connectionView(row, secret);
    },
    pauseInboundConnection: async (request, { principal }) =>
      connectionView(await connections.setStatus(principal, request.id, InboundConnectionStatus.PAUSED)),
    resumeInboundConnection: async (request, { principal }) =>
      connectionView(await connections.setStatus(principal, request.id, InboundConnectionStatus.ACTIVE)),
    captureInboundConnectionSchema: async (request, { principal }) =>
      connectionView(await connections.openCapture(principal, request.id)),
    injectInboundConnectionPayload: async (request, { principal }) =>
      connectionView(await connections.inject(principal, request.id, request.payloadJson)),
    listInboundConnectionHistory: async (request, { principal }) => {
      const page = await connections.history(principal, request.id, request.outcome, {
        cursor: request.input?.cursor || undefined,
        isBefore: request.input?.isBefore,
        limit: pageLimit(request.input?.limit, DEFAULT_PAGE_SIZE, 'input.limit'),
      });
      return { ...page, data: page.data.map(requestView) };
    },
    deleteInboundConnection: async (request, { principal }) => {
      await connections.delete(principal, request.id);
      return { ok: true };
    },
    findInboundConnections: async (request, { principal }) => ({
      connectionIds: await connections.find(principal, request.connectionIds),
    }),
  };
  return implement('webhook-ingress', WebhookIngressServiceService, handlers, deps);
}
