import type { DataSource } from 'typeorm';
import {
  ApiScope,
  DeadlineExceeded,
  FailedPrecondition,
  InvalidArgument,
  isId,
  newId,
  requireOrg,
  requireScope,
  Unavailable,
  type Principal,
} from '@svc/kit';
import { PrincipalKind } from '@svc/proto/common/v1';
import type { Message, SendMessageRequest } from '@svc/proto/inbox/v1';
import type { SendChatAppATemplateMessageRequest } from '@svc/proto/channels/v1/templates';
import { type ChatAppATemplateRow, ChatAppATemplateSendRow } from '../../entities';
import type { TemplateComponentParameters } from '../../platforms/adapter';
import type { TemplateInbox } from './inbox';
import type { ChatAppATemplates } from './templates';
import { bodyParameterCount, headerParameterCount } from './components';
import { componentOf, SENDABLE_STATUSES, type TemplateSendPayload } from './vocabulary';

/** A send whose message is not recorded yet is waited for this long; older, it is taken as abandoned. */
export const PENDING_SEND_MS = 2 * 60_000;
/** The longest parameter value the platform takes. */
const PARAMETER_MAX = 1024;

/**
 * What the outbound sender asks for each message of a CHAT_APP_A chat before sending it (contract with
 * `delivery/**`): `template` — send this TEMPLATE content instead of the message's text; `pending` — a template send
 * in this chat is being recorded, try again shortly (transient); `none` — an ordinary message.
 */
export type TemplatePayloadLookup =
  { kind: 'template'; payload: TemplateSendPayload } | { kind: 'pending' } | { kind: 'none' };

export async function templatePayloadOf(
  dataSource: DataSource,
  message: { messageId: string; chatId: string },
  now: Date = new Date(),
): Promise<TemplatePayloadLookup> {
  const repository = dataSource.getRepository(ChatAppATemplateSendRow);
  const sent = await repository.findOneBy({ messageId: message.messageId });
  if (sent) return { kind: 'template', payload: sent.payload };
  const pending = await repository
    .createQueryBuilder('send')
    .where('send.chat_id = :chatId AND send.message_id IS NULL AND send.created_at > :since', {
      chatId: message.chatId,
      since: new Date(now.getTime() - PENDING_SEND_MS),
    })
    .getCount();
  return pending > 0 ? { kind: 'pending' } : { kind: 'none' };
}

/**
 * sendChatAppATemplateMessage (decision 0129): an approved template with its parameters into a CHAT_APP_A chat. The
 * message is created through the inbox as SYSTEM with `platform_template` (the 24-hour window does not apply), its
 * text the rendered body (what agents read in the thread); the TEMPLATE payload is recorded first for the sender.
 */
export class ChatAppATemplateSends {
  constructor(
    private readonly dataSource: DataSource,
    private readonly templates: ChatAppATemplates,
    private readonly inbox: TemplateInbox,
  ) {}

  async send(principal: Principal, request: SendChatAppATemplateMessageRequest): Promise<Message> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    const orgId = requireOrg(principal);
    if (!isId(request.chatId)) throw new InvalidArgument('chatId must be a 24-character hex id', { field: 'chatId' });
    const template = await this.templates.row(orgId, request.templateId, 'templateId');
    const chat = await this.inbox.getChat(orgId, request.chatId);
    if (chat.channelId !== template.channelId) {
      throw new InvalidArgument('templateId: the template belongs to another channel than the chat', {
        field: 'templateId',
      });
    }
    await this.templates.channelOf(orgId, template.channelId, 'templateId');
    if (!SENDABLE_STATUSES.has(template.status)) {
      throw new FailedPrecondition(`the template is ${template.status}: only an approved template can be sent`, {
        field: 'templateId',
        status: template.status,
      });
    }
    const payload = templatePayload(template, request);
    const at = new Date();
    const send = this.dataSource.getRepository(ChatAppATemplateSendRow).create({
      id: newId(at),
      orgId,
      chatId: chat._id,
      messageId: null,
      templateId: template.id,
      payload,
      requestedBy: requesterOf(principal),
      createdAt: at,
    });
    await this.dataSource.getRepository(ChatAppATemplateSendRow).insert(send);
    const message = await this.createMessage(orgId, send, {
      chatId: chat._id,
      input: { text: renderedText(template, request), internal: false },
      idempotencyKey: `template-send:${send.id}`,
      platformTemplate: true,
    });
    await this.dataSource.getRepository(ChatAppATemplateSendRow).update({ id: send.id }, { messageId: message._id });
    return message;
  }

  /**
   * SendMessage with the send's idempotency key, so asking again cannot make a second message: retried once when the
   * inbox did not answer. A refusal removes the pending record; an unanswered call leaves it (the message may exist:
   * the sender waits PENDING_SEND_MS for it rather than sending it as text).
   */
  private async createMessage(orgId: string, send: ChatAppATemplateSendRow, request: SendMessageRequest) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.inbox.sendMessage(orgId, request);
      } catch (error) {
        const unanswered = error instanceof Unavailable || error instanceof DeadlineExceeded;
        if (unanswered && attempt < 2) continue;
        if (!unanswered) await this.dataSource.getRepository(ChatAppATemplateSendRow).delete({ id: send.id });
        throw error;
      }
    }
  }
}

/** The TEMPLATE content, the parameters checked against the template: as many as it has `{{n}}`, in order. */
export function templatePayload(
  template: ChatAppATemplateRow,
  request: SendChatAppATemplateMessageRequest,
): TemplateSendPayload {
  const header = values(request.headerParameters, headerParameterCount(template.components), 'headerParameters');
  const body = values(request.bodyParameters, bodyParameterCount(template.components), 'bodyParameters');
  const components: TemplateComponentParameters[] = [];
  if (header.length) components.push({ type: 'header', parameters: header.map((text) => ({ type: 'text', text })) });
  if (body.length) components.push({ type: 'body', parameters: body.map((text) => ({ type: 'text', text })) });
  const buttons = componentOf(template.components, 'BUTTONS')?.buttons ?? [];
  const dynamic = buttons.flatMap((button, index) =>
    button.type === 'URL' && button.url.includes('{{') ? [index] : [],
  );
  const given = new Map(request.buttonParameters.map((p) => [p.index, p.value]));
  for (const index of given.keys()) {
    if (!dynamic.includes(index)) {
      throw new InvalidArgument(`buttonParameters: button ${index} takes no parameter`, { field: 'buttonParameters' });
    }
  }
  for (const index of dynamic) {
    const value = given.get(index)?.trim();
    if (!value) {
      throw new InvalidArgument(`buttonParameters: button ${index} needs its URL parameter`, {
        field: 'buttonParameters',
      });
    }
    components.push({ type: 'button', subType: 'url', index, parameters: [{ type: 'text', text: value }] });
  }
  return { type: 'TEMPLATE', name: template.name, language: template.language, components };
}

function values(given: string[], expected: number, field: string): string[] {
  if (given.length !== expected) {
    throw new InvalidArgument(`${field}: the template takes ${expected}, ${given.length} given`, { field });
  }
  return given.map((value, index) => {
    const text = value.trim();
    if (!text || [...text].length > PARAMETER_MAX) {
      throw new InvalidArgument(`${field}: parameter ${index + 1} must be 1–${PARAMETER_MAX} characters`, { field });
    }
    return text;
  });
}

/** The body with its parameters filled in (and the header above it when it is text). */
function renderedText(template: ChatAppATemplateRow, request: SendChatAppATemplateMessageRequest): string {
  const fill = (text: string, params: string[]) =>
    text.replace(/\{\{\s*(\d+)\s*\}\}/g, (all, n: string) => params[Number(n) - 1]?.trim() ?? all);
  const header = componentOf(template.components, 'HEADER');
  const body = componentOf(template.components, 'BODY')?.text ?? '';
  const footer = componentOf(template.components, 'FOOTER')?.text;
  return [
    header?.format === 'TEXT' ? fill(header.text, request.headerParameters) : undefined,
    fill(body, request.bodyParameters),
    footer,
  ]
    .filter(Boolean)
    .join('\n\n');
}

function requesterOf(principal: Principal): string {
  if (principal.kind === PrincipalKind.MEMBER_SESSION) return `MEMBER:${principal.memberId}`;
  if (principal.kind === PrincipalKind.API_KEY) return `API_KEY:${principal.keyId}`;
  return String(principal.kind);
}
