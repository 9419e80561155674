import type { OutboundContent } from '../platforms/adapter';

/**
 * The template payload of a message sent by `sendChatAppATemplateMessage` (helper "meta": domain/templates), which
 * the event does not carry: the sender asks it before building the content from the inbox's message.
 */
export interface TemplatePayloads {
  /** The TEMPLATE content recorded for the message; undefined for a message that is not a platform template. */
  contentFor(orgId: string, messageId: string): Promise<OutboundContent | undefined>;
}

/** Until the templates are wired: no message is a template. */
export const NO_TEMPLATES: TemplatePayloads = { contentFor: () => Promise.resolve(undefined) };
