import type { Route } from './route';

type Json = Record<string, unknown>;

/** The public input's lists may be left out; the proto's repeated fields want them present. */
function components(list: unknown): Json[] {
  return ((list ?? []) as Json[]).map((c) => ({ ...c, buttons: c.buttons ?? [], examples: c.examples ?? [] }));
}

export const channelsTemplatesRoutes: Record<string, Route> = {
  chatAppATemplates: {
    service: 'channelsTemplates',
    method: 'ListTemplates',
    response: (r) => r.templates ?? [],
  },
  chatAppATemplate: { service: 'channelsTemplates', method: 'GetTemplate' },
  createChatAppATemplate: {
    service: 'channelsTemplates',
    method: 'CreateTemplate',
    request: (a) => ({
      channelId: a.channelId,
      input: { ...(a.input as Json), components: components((a.input as Json)?.components) },
    }),
  },
  updateChatAppATemplate: {
    service: 'channelsTemplates',
    method: 'UpdateTemplate',
    request: (a) => {
      const input = (a.input ?? {}) as Json;
      return { id: a.id, input: { ...input, components: components(input.components) } };
    },
  },
  deleteChatAppATemplate: { service: 'channelsTemplates', method: 'DeleteTemplate' },
  syncChatAppATemplates: { service: 'channelsTemplates', method: 'SyncTemplates' },
  sendChatAppATemplateMessage: { service: 'channelsTemplates', method: 'SendTemplateMessage' },
};
