import { IdentifierType, type Contact } from '@svc/proto/contacts/v1';
import { MessageType, type Message } from '@svc/proto/inbox/v1';
import type { OutboundContent, PlatformError } from '../platforms/adapter';

/**
 * What the platform is asked to deliver, from the inbox's message (GetMessageForDelivery): media as the inbox's signed
 * links (MEDIA_PUBLIC_URL must be an address the platform can reach), the caption being the message text. A message the
 * platform cannot be given is a permanent failure with code `unsupported_content`.
 */
export function outboundContentOf(message: Message): OutboundContent | PlatformError {
  switch (message.type) {
    case MessageType.MEDIA: {
      const media = message.media.map((m) => ({ url: m.url, mimeType: m.contentType, fileName: m.fileName }));
      if (!media.length) return unsupported('a media message whose media is gone');
      if (media.some((m) => !/^https?:\/\//.test(m.url)))
        return unsupported('media links are relative: set MEDIA_PUBLIC_URL so the platform can fetch them');
      return { type: 'MEDIA', media, ...(message.text ? { caption: message.text } : {}) };
    }
    case MessageType.LOCATION:
      if (!message.location) return unsupported('a location message without its location');
      return {
        type: 'LOCATION',
        latitude: message.location.latitude,
        longitude: message.location.longitude,
        ...(message.location.name ? { name: message.location.name } : {}),
        ...(message.location.address ? { address: message.location.address } : {}),
      };
    case MessageType.CONTACT_CARD: {
      const card = message.contactCard;
      if (!card) return unsupported('a contact card message without its card');
      return {
        type: 'CONTACT_CARD',
        name: card.name,
        phones: card.phone ? [card.phone] : [],
        emails: card.email ? [card.email] : [],
      };
    }
    case MessageType.BUTTONS:
      return {
        type: 'BUTTONS',
        text: message.text,
        buttons: message.buttons.map((b) => ({ id: b.id, title: b.title })),
      };
    default:
      return { type: 'TEXT', text: message.text };
  }
}

/** The platform user the chat's contact is on this channel: its CHANNEL_USER_ID identity scoped to the channel. */
export function recipientOf(contact: Contact, channelId: string): string | undefined {
  return contact.identities.find(
    (identity) => identity.type === IdentifierType.CHANNEL_USER_ID && identity.channelIntegrationId === channelId,
  )?.value;
}

function unsupported(message: string): PlatformError {
  return { transient: false, code: 'unsupported_content', message };
}
