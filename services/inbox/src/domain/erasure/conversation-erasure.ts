import type { DataSource } from 'typeorm';
import { FailedPrecondition, NotFound, runErasure, type OutboxRelay, type Principal } from '@svc/kit';
import type { DeleteConversationResult } from '@svc/proto/inbox/v1';
import { ChatRow } from '../../entities';
import { findConversation } from '../lookups';
import type { InboxErasure } from './inbox-erasure';

/** Contacts' side of an erasure, as the inbox asks for one. */
export interface ErasureRequests {
  /**
   * Records the erasure of the contact on behalf of `requestedBy` (contacts' EraseContact) and answers its id; a
   * contact already erased or being erased answers the same erasure. NOT_FOUND when contacts does not know the contact.
   */
  request(orgId: string, contactId: string, requestedBy: Principal): Promise<string>;
}

/**
 * `apiDeleteConversation(removePeople: true)` (docs/decisions/0168): the conversation's contact is erased everywhere
 * through the erasure saga, and the inbox's part of that erasure, which deletes this conversation with every thread of
 * the contact, runs before the answer, confirmed like the consumer would. So the answer is true when it is given: the
 * threads it names are gone, and the erasure it names is recorded (its receipt completes as the other services confirm).
 * Nothing is deleted when the request fails.
 */
export class ConversationErasure {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly part: InboxErasure,
    private readonly requests: ErasureRequests,
  ) {}

  async deleteAndErase(principal: Principal, orgId: string, conversationId: string): Promise<DeleteConversationResult> {
    const manager = this.dataSource.manager;
    const conversation = await findConversation(manager, orgId, conversationId);
    const { contactId } = conversation;
    // Every thread of the contact is a thread of its one conversation in the org: the erasure removes exactly these.
    const chats = await manager.find(ChatRow, { select: { id: true }, where: { orgId, contactId } });
    const erasureId = await this.requests.request(orgId, contactId, principal).catch((error: unknown) => {
      // The caller named a conversation, not a contact: a contact contacts never knew is a state, not a missing id.
      if (error instanceof NotFound)
        throw new FailedPrecondition(
          "the conversation's contact is not known to the contacts service, so it cannot be erased; delete with removePeople: false",
          { field: 'removePeople' },
        );
      throw error;
    });
    // The erasure consumer may get there first: then this finds nothing and confirms zeros (contacts keeps the first).
    await runErasure(this.dataSource, this.part, { erasureId, orgId, contactId });
    this.relay().nudge();
    return {
      conversationId: conversation.id,
      deletedChatIds: chats.map((chat) => chat.id),
      contactEraseRequested: true,
      erasureId,
    };
  }
}
