import type { DataSource, EntityManager } from 'typeorm';
import {
  kindCounts,
  now,
  type ContactErasure,
  type ErasedPart,
  type ErasureKindCount,
  type ErasurePart,
} from '@svc/kit';
import { AuthorType } from '@svc/proto/inbox/v1';
import { MessageReactionRow } from '../../entities';
import { removeThreads } from '../deletion';
import type { MediaLibrary } from '../media';
import { contactFootprint, type ContactFootprint } from './contact-footprint';
import { recordErasedContact } from './erased-contacts';

/** The kinds the inbox's part counts, in this order, zeros included (docs/erasure.md). */
export const INBOX_ERASURE_KINDS = ['conversations', 'chats', 'messages', 'notes', 'reactions', 'media'] as const;

function countsOf(footprint: ContactFootprint): ErasureKindCount[] {
  const found: Record<(typeof INBOX_ERASURE_KINDS)[number], number> = {
    conversations: footprint.conversations.length,
    chats: footprint.chats.length,
    messages: footprint.messages,
    notes: footprint.notes,
    reactions: footprint.reactions,
    media: footprint.media.length,
  };
  return kindCounts(INBOX_ERASURE_KINDS, found);
}

/**
 * The inbox's part of erasing a contact (docs/decisions/0165): its conversation, every thread with their messages and
 * notes (edits, reactions, labels, search terms, read positions, visitor event logs), the contact's reactions anywhere,
 * the media attached only there or uploaded by the contact, and so the inbox's copy of the contact's name, email and
 * phone (kept on those rows). The same hard delete as apiDeleteConversation, with the same events; the media bytes
 * are recorded for deletion in the transaction and deleted after it (durable, BlobDeletions). Idempotent: a second
 * erasure finds nothing and counts zeros.
 */
export class InboxErasure implements ErasurePart {
  readonly service = 'inbox' as const;

  constructor(
    private readonly dataSource: DataSource,
    private readonly media: MediaLibrary,
  ) {}

  async preview(orgId: string, contactId: string): Promise<ErasureKindCount[]> {
    return countsOf(await contactFootprint(this.dataSource.manager, this.media, orgId, contactId));
  }

  async erase(manager: EntityManager, erasure: ContactErasure): Promise<ErasedPart> {
    const { orgId, contactId } = erasure;
    // The tombstone first: a write for the contact that checked it before waits no longer than its own commit, and is
    // erased below; one that checks it after finds it (decision 0169).
    await recordErasedContact(manager, orgId, contactId, now());
    const footprint = await contactFootprint(manager, this.media, orgId, contactId, true);
    // The contact's reactions in other threads; those on its own threads' messages go with the threads.
    await manager.delete(MessageReactionRow, { orgId, reactorType: AuthorType.CONTACT, reactorId: contactId });
    const keys = await removeThreads(manager, this.media, orgId, footprint, contactId);
    return { counts: countsOf(footprint), afterCommit: () => this.media.discardBlobs(keys) };
  }
}
