import { AuthorType } from '@svc/proto/inbox/v1';
import { VisitorMessage, type VisitorEvent } from '@svc/proto/inbox/v1/visitor';

/** How the integration presents its side: the team name and avatar stand for API keys and automated messages. */
export interface VisitorView {
  teamName: string;
  teamAvatarUrl: string;
}

export interface TypingNotice {
  typing: boolean;
  displayName: string;
  avatarUrl: string;
}

/** A message as a visitor sees it (docs/widget-api.md): the inbox's visitor view, with the team name filled in. */
export function visitorMessageJson(message: VisitorMessage, view: VisitorView): unknown {
  const json = VisitorMessage.toJSON(message) as { author?: { displayName?: string; avatarUrl?: string } };
  const type = message.author?.type;
  if ((type === AuthorType.API_KEY || type === AuthorType.SYSTEM) && !message.author?.displayName) {
    json.author = { ...json.author, displayName: view.teamName, avatarUrl: view.teamAvatarUrl || undefined };
  }
  return json;
}

/** One SSE event of the chat's log: `id:` is its sequence number, `event:` its type. */
export function chatEventData(event: VisitorEvent, view: VisitorView): string {
  const data = event.message
    ? {
        seq: event.seq,
        chatId: event.chatId,
        occurredAt: event.occurredAt,
        message: visitorMessageJson(event.message, view),
      }
    : { seq: event.seq, chatId: event.chatId, occurredAt: event.occurredAt, status: event.chatStatus };
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** `typing`: an agent started or stopped typing (no id: it is not part of the log and never replayed). */
export function typingData(notice: TypingNotice): string {
  const data = { typing: notice.typing, displayName: notice.displayName, avatarUrl: notice.avatarUrl || undefined };
  return `event: typing\ndata: ${JSON.stringify(data)}\n\n`;
}
