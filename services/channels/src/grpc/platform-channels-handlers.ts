import { ChannelType } from '@svc/proto/channels/v1';
import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { PlatformChannelsServiceService } from '@svc/proto/channels/v1/platform_channels';
import type { PlatformConnections } from '../domain/connect/connect';
import type { HostedConnect } from '../domain/connect/hosted';
import type { ManagedChannels } from '../domain/manage/channels';

export function platformChannelsService(
  domain: { channels: ManagedChannels; connections: PlatformConnections; hosted: HostedConnect },
  deps: ImplementDeps,
) {
  const { channels, connections, hosted } = domain;
  const handlers: ServiceHandlers<typeof PlatformChannelsServiceService> = {
    listChannels: async (_request, { principal }) => ({ channels: await channels.list(principal) }),
    pauseChannel: (request, { principal }) => channels.pause(principal, request.id),
    resumeChannel: (request, { principal }) => channels.resume(principal, request.id),
    updateChannel: (request, { principal }) => channels.update(principal, request.id, request.input),
    disconnectChannel: (request, { principal }) => channels.disconnect(principal, request.id),
    connectChatAppB: ({ botToken, options }, { principal }) =>
      connections.connect(principal, ChannelType.CHAT_APP_B, { botToken }, options),
    connectChatAppC: ({ authToken, options }, { principal }) =>
      connections.connect(principal, ChannelType.CHAT_APP_C, { authToken }, options),
    connectChatAppA: ({ accessToken, phoneNumberId, businessAccountId, appSecret, options }, { principal }) =>
      connections.connect(
        principal,
        ChannelType.CHAT_APP_A,
        { accessToken, phoneNumberId, businessAccountId, appSecret },
        options,
      ),
    connectSocialAppD: ({ pageAccessToken, pageId, appId, appSecret, options }, { principal }) =>
      connections.connect(principal, ChannelType.SOCIAL_APP_D, { pageAccessToken, pageId, appId, appSecret }, options),
    createPartnerConnectUrl: (request, { principal }) => hosted.create(principal, request),
  };
  return implement('channels', PlatformChannelsServiceService, handlers, deps);
}
