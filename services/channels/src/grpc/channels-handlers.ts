import type { DataSource } from 'typeorm';
import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { ChannelsServiceService } from '@svc/proto/channels/v1';
import { findChannels } from '../domain/find-channels';
import { verifyVisitorProof } from '../domain/proofs';
import type { IdentitySecrets } from '../domain/secrets';
import { webIntegrationView } from '../domain/views';
import type { WebIntegrations } from '../domain/web-integrations';

export function channelsService(
  domain: { webIntegrations: WebIntegrations; secrets: IdentitySecrets; dataSource: DataSource },
  deps: ImplementDeps,
) {
  const { webIntegrations } = domain;
  const handlers: ServiceHandlers<typeof ChannelsServiceService> = {
    getWebIntegration: async (_request, { principal }) =>
      webIntegrationView(await webIntegrations.getDefault(principal)),
    getWebIntegrationById: async (request, { principal }) =>
      webIntegrationView(await webIntegrations.get(principal, request.id)),
    createWebIntegration: (request, { principal }) => webIntegrations.create(principal, request.input),
    updateWebIntegration: (request, { principal }) => webIntegrations.update(principal, request.id, request.input),
    rotateWebIntegrationSecret: (request, { principal }) => webIntegrations.rotateSecret(principal, request.id),
    deleteWebIntegration: (request, { principal }) => webIntegrations.delete(principal, request.id),
    resolvePublicKey: (request, { principal }) => webIntegrations.resolvePublicKey(principal, request.publicKey),
    verifyVisitorProof: (request, { principal }) =>
      verifyVisitorProof(domain.dataSource, domain.secrets, principal, request),
    findChannels: async (request, { principal }) => {
      const channels = await findChannels(domain.dataSource, principal, request.channelIds, {
        type: request.type,
        includeDeleted: request.includeDeleted ?? false,
      });
      return { channelIds: channels.map((channel) => channel.id), channels };
    },
  };
  return implement('channels', ChannelsServiceService, handlers, deps);
}
