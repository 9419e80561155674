import type { ChatAppATemplateComponent } from '@svc/proto/channels/v1/templates';
import type { OutboundContent } from '../../platforms/adapter';

/** The platform's template categories (platforms.md 1.2). */
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

/**
 * The statuses a template can be in, as the platform names them in its template list and its
 * `message_template_status_update` events. Two events are moves back rather than states: REINSTATED and UNARCHIVED
 * put the template back to APPROVED (decision 0128).
 */
export const TEMPLATE_STATUSES = [
  'PENDING',
  'APPROVED',
  'REJECTED',
  'PAUSED',
  'DISABLED',
  'FLAGGED',
  'IN_APPEAL',
  'LIMIT_EXCEEDED',
  'LOCKED',
  'ARCHIVED',
  'PENDING_DELETION',
  'DELETED',
] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

const EVENT_STATUS: Readonly<Record<string, TemplateStatus>> = {
  REINSTATED: 'APPROVED',
  UNARCHIVED: 'APPROVED',
  UNPAUSED: 'APPROVED',
};

/** The stored status for a platform status or event word; undefined for a word we do not know (left as it was). */
export function templateStatusOf(word: string): TemplateStatus | undefined {
  const upper = word.trim().toUpperCase();
  return (TEMPLATE_STATUSES as readonly string[]).includes(upper) ? (upper as TemplateStatus) : EVENT_STATUS[upper];
}

/**
 * A template can be sent while the platform delivers it: APPROVED, and FLAGGED (low quality, still active until the
 * platform pauses it).
 */
export const SENDABLE_STATUSES: ReadonlySet<string> = new Set<TemplateStatus>(['APPROVED', 'FLAGGED']);

export type TemplateComponents = ChatAppATemplateComponent[];

/** What a template send recorded for the sender: the TEMPLATE content of the message. */
export type TemplateSendPayload = Extract<OutboundContent, { type: 'TEMPLATE' }>;

/** The number of distinct `{{n}}` parameters in a text. */
export function parameterCount(text: string): number {
  return new Set([...text.matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((m) => m[1])).size;
}

export function componentOf(components: TemplateComponents, type: string): ChatAppATemplateComponent | undefined {
  return components.find((c) => c.type === type);
}
