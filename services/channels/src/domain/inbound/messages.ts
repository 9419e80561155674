import type { DataSource } from 'typeorm';
import { InvalidArgument, isDuplicateKeyError, newId, now, type Logger } from '@svc/kit';
import type { ReceiveMessageRequest } from '@svc/proto/inbox/v1';
import { PlatformInboundMessageRow } from '../../entities';
import {
  PlatformCallError,
  type ConnectedChannel,
  type InboundContent,
  type InboundMessage,
  type PlatformAdapter,
} from '../../platforms/adapter';
import type { InboundBackends } from './backends';
import { resolveContact } from './contacts';

/** What the inbox records for content it cannot show (decision 0138): a text saying so, never nothing. */
export function unsupportedText(description: string): string {
  return `[Unsupported message: ${description}]`;
}

/** An attachment that could not be stored: the message still arrives, saying so. */
function unstoredText(reason: string): string {
  return `[Attachment not received: ${reason}]`;
}

/**
 * Records one platform message in the inbox (decision 0136): contact, chat, media, message; once per (channel,
 * platform message id). The row in `platform_inbound_messages` is checked first, so a redelivery, even after the chat
 * was closed and a new thread would open, records nothing; the inbox's `external_id` backs it within the chat when a
 * crash fell between ReceiveMessage and the row. Media already stored is remembered on the row, so a retry does not
 * store it twice.
 */
export class InboundMessages {
  constructor(
    private readonly dataSource: DataSource,
    private readonly backends: InboundBackends,
    private readonly logger: Logger,
  ) {}

  /** Whether the message was recorded by this call (false: it already was). */
  async record(adapter: PlatformAdapter, channel: ConnectedChannel, message: InboundMessage): Promise<boolean> {
    const repository = this.dataSource.getRepository(PlatformInboundMessageRow);
    const key = { channelId: channel.channelId, platformMessageId: message.platformMessageId };
    let row = await repository.findOneBy(key);
    if (row?.messageId) return false;
    const contact = await resolveContact(this.backends, this.logger, channel, message.from);
    const chat = await this.backends.openChat(channel.orgId, channel.channelId, channel.type, contact);
    const request: ReceiveMessageRequest = {
      chatId: chat._id,
      text: '',
      mediaIds: [],
      externalId: message.platformMessageId,
    };
    const content = message.content;
    if (content.type === 'MEDIA') {
      const stored = row?.mediaIds ?? (await this.storeMedia(adapter, channel, contact._id, content));
      if (typeof stored === 'string') request.text = [content.caption, unstoredText(stored)].filter(Boolean).join('\n');
      else {
        row = await this.remember(row, key, { mediaIds: stored, contactId: contact._id });
        request.mediaIds = stored;
        request.text = content.caption ?? '';
      }
    } else Object.assign(request, contentFields(content));
    const recorded = await this.backends.receiveMessage(channel.orgId, request);
    await this.remember(row, key, { messageId: recorded._id, contactId: contact._id });
    return true;
  }

  /**
   * Fetches each attachment from the platform into the media library as the contact's upload; a reason instead when
   * the platform or the library refuses one for good (expired, too large, a type the library does not take). A
   * transient platform failure throws: the event is retried.
   */
  private async storeMedia(
    adapter: PlatformAdapter,
    channel: ConnectedChannel,
    contactId: string,
    content: Extract<InboundContent, { type: 'MEDIA' }>,
  ): Promise<string[] | string> {
    const ids: string[] = [];
    for (const [index, ref] of content.media.entries()) {
      try {
        const fetched = await adapter.fetchMedia(channel, ref);
        const media = await this.backends.createMedia(channel.orgId, contactId, {
          fileName: fetched.fileName ?? ref.fileName ?? `attachment-${index + 1}`,
          declaredContentType: fetched.mimeType ?? ref.mimeType ?? 'application/octet-stream',
          content: fetched.bytes,
        });
        ids.push(media._id);
      } catch (error) {
        if (error instanceof PlatformCallError && !error.error.transient) return error.error.message;
        if (error instanceof InvalidArgument) return error.message;
        throw error;
      }
    }
    return ids;
  }

  private async remember(
    row: PlatformInboundMessageRow | null,
    key: { channelId: string; platformMessageId: string },
    change: Partial<Pick<PlatformInboundMessageRow, 'mediaIds' | 'messageId' | 'contactId'>>,
  ): Promise<PlatformInboundMessageRow> {
    const repository = this.dataSource.getRepository(PlatformInboundMessageRow);
    if (row) {
      await repository.update({ id: row.id }, change);
      return { ...row, ...change };
    }
    const at = now();
    const created: PlatformInboundMessageRow = {
      id: newId(at),
      ...key,
      mediaIds: null,
      messageId: null,
      contactId: null,
      createdAt: at,
      ...change,
    };
    try {
      await repository.insert(created);
      return created;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const existing = await repository.findOneByOrFail(key);
      await repository.update({ id: existing.id }, change);
      return { ...existing, ...change };
    }
  }
}

/** ReceiveMessage's fields for content other than media. */
function contentFields(content: Exclude<InboundContent, { type: 'MEDIA' }>): Partial<ReceiveMessageRequest> {
  switch (content.type) {
    case 'TEXT':
      return { text: content.text };
    case 'LOCATION':
      return {
        location: {
          latitude: content.latitude,
          longitude: content.longitude,
          name: content.name,
          address: content.address,
        },
      };
    case 'CONTACT_CARD':
      // The inbox's card holds one phone and one email: the first of each; the rest stay readable in the text.
      return {
        text: [...content.phones.slice(1), ...content.emails.slice(1)].join('\n'),
        contactCard: {
          name: content.name || content.phones[0] || content.emails[0] || 'Contact',
          phone: content.phones[0],
          email: content.emails[0],
        },
      };
    case 'BUTTON_REPLY':
      return { text: content.text, buttonReply: { id: content.payload || content.text, title: content.text } };
    case 'UNSUPPORTED':
      return { text: unsupportedText(content.description) };
  }
}
