import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { ChatAppATemplatesServiceService } from '@svc/proto/channels/v1/templates';
import type { ChatAppATemplateSends } from '../domain/templates/template-sends';
import type { ChatAppATemplates } from '../domain/templates/templates';

export const TEMPLATES_GRPC_SERVICE = 'svc.channels.v1.ChatAppATemplatesService';

export function templatesService(
  domain: { templates: ChatAppATemplates; sends: ChatAppATemplateSends },
  deps: ImplementDeps,
) {
  const { templates, sends } = domain;
  const handlers: ServiceHandlers<typeof ChatAppATemplatesServiceService> = {
    listTemplates: async (request, { principal }) => ({
      templates: await templates.list(principal, request.channelId, request.status),
    }),
    getTemplate: (request, { principal }) => templates.get(principal, request.id),
    createTemplate: (request, { principal }) => templates.create(principal, request.channelId, request.input),
    updateTemplate: (request, { principal }) => templates.update(principal, request.id, request.input),
    deleteTemplate: (request, { principal }) => templates.delete(principal, request.id),
    syncTemplates: (request, { principal }) => templates.sync(principal, request.channelId),
    sendTemplateMessage: (request, { principal }) => sends.send(principal, request),
  };
  return implement('channels', ChatAppATemplatesServiceService, handlers, deps);
}
