import type { DataSource } from 'typeorm';
import { enqueueEvents, requireOrg, requireScope, type OutboxRelay, type Principal } from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { AuthorType, type Chat } from '@svc/proto/inbox/v1';
import { readerOf, authorOf } from './actor';
import { chatViewOf } from './chat-views';
import { typingEvent, type Typist } from './events';
import { findChat } from './lookups';
import type { MemberDirectory } from './members';

/**
 * InboxService.SetChatTyping: a member or key (MESSAGES_SEND) is typing in a chat; `chat.typing` carries the
 * member's display name and avatar, never its id (widget-api shows it to the visitor). Nothing is stored but the
 * outbox row. Internal notes are not a chat's typing: nothing here knows of them.
 */
export class ChatTyping {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly members: MemberDirectory,
  ) {}

  async set(principal: Principal, chatId: string, typing: boolean): Promise<Chat> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    const orgId = requireOrg(principal);
    const chat = await findChat(this.dataSource.manager, orgId, chatId);
    const typist = await this.typistOf(principal, orgId);
    await this.dataSource.transaction((manager) => enqueueEvents(manager, [typingEvent(chat, typist, typing)]));
    this.relay().nudge();
    return chatViewOf(this.dataSource.manager, readerOf(principal), chat);
  }

  private async typistOf(principal: Principal, orgId: string): Promise<Typist> {
    const { authorType, authorId } = authorOf(principal);
    if (authorType !== AuthorType.MEMBER) return { authorType, displayName: '', avatarUrl: '' };
    const profile = (await this.members.profilesOf(orgId)).get(authorId);
    return { authorType, displayName: profile?.displayName ?? '', avatarUrl: profile?.avatarUrl ?? '' };
  }
}
