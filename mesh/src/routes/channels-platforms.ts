import type { Route } from './route';

type Json = Record<string, unknown>;

/** The public inputs list the connect options beside the credentials; the proto groups them. */
function connectRequest(input: unknown, credentials: readonly string[]): Json {
  const { name, aiAutoReply, ...rest } = (input ?? {}) as Json;
  const request: Json = { options: { name, aiAutoReply } };
  for (const key of credentials) request[key] = rest[key];
  return request;
}

export const channelsPlatformRoutes: Record<string, Route> = {
  channels: { service: 'channelsPlatforms', method: 'ListChannels', response: (r) => r.channels ?? [] },
  pauseChannel: { service: 'channelsPlatforms', method: 'PauseChannel' },
  resumeChannel: { service: 'channelsPlatforms', method: 'ResumeChannel' },
  updateChannel: { service: 'channelsPlatforms', method: 'UpdateChannel' },
  disconnectChannel: { service: 'channelsPlatforms', method: 'DisconnectChannel' },
  connectChatAppBChannel: {
    service: 'channelsPlatforms',
    method: 'ConnectChatAppB',
    request: (a) => connectRequest(a.input, ['botToken']),
  },
  connectChatAppCChannel: {
    service: 'channelsPlatforms',
    method: 'ConnectChatAppC',
    request: (a) => connectRequest(a.input, ['authToken']),
  },
  connectChatAppAChannel: {
    service: 'channelsPlatforms',
    method: 'ConnectChatAppA',
    request: (a) => connectRequest(a.input, ['accessToken', 'phoneNumberId', 'businessAccountId', 'appSecret']),
  },
  connectSocialAppDChannel: {
    service: 'channelsPlatforms',
    method: 'ConnectSocialAppD',
    request: (a) => connectRequest(a.input, ['pageAccessToken', 'pageId', 'appId', 'appSecret']),
  },
  partnerChannelConnectUrl: {
    service: 'channelsPlatforms',
    method: 'CreatePartnerConnectUrl',
    request: (a) => {
      const { returnUrl, ...input } = (a.input ?? {}) as Json;
      return { ...connectRequest(input, ['type']), returnUrl: returnUrl ?? '' };
    },
  },
};
