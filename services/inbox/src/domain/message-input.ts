import { InvalidArgument } from '@svc/kit';
import {
  MessageType,
  type ContactCard,
  type CreateCombinedMessageInput,
  type Location,
  type MessageButton,
} from '@svc/proto/inbox/v1';
import { MAX_EXTERNAL_ID_LENGTH, type MessageContent } from '../entities/message';
import { requireId } from './lookups';

export const MAX_TEXT_LENGTH = 10_000;
export const MAX_MEDIA_PER_MESSAGE = 10;
export const MAX_BUTTONS = 10;

function bad(message: string, field: string): never {
  throw new InvalidArgument(message, { field });
}

export function validText(text: string, field = 'input.text'): string {
  if (!text.trim()) bad('text must not be empty', field);
  if (text.length > MAX_TEXT_LENGTH) bad(`text must be at most ${MAX_TEXT_LENGTH} characters`, field);
  return text;
}

function optionalText(text: string): string {
  if (text.length > MAX_TEXT_LENGTH) bad(`text must be at most ${MAX_TEXT_LENGTH} characters`, 'input.text');
  return text;
}

export interface ValidMessage {
  type: MessageType;
  text: string;
  content: MessageContent | null;
}

/**
 * Checks a message to send against its type (docs/decisions/0020-inbox-domain-model.md): TEXT needs text; MEDIA
 * 1-10 media ids (text is the caption); LOCATION coordinates in range; CONTACT_CARD a name; BUTTONS text and
 * 1-10 buttons. Internal notes are text only.
 */
export function validMessage(input: CreateCombinedMessageInput): ValidMessage {
  const type = !input.type || input.type === MessageType.MESSAGE_TYPE_UNSPECIFIED ? MessageType.TEXT : input.type;
  if (input.internal && type !== MessageType.TEXT) bad('an internal note is text only', 'input.type');
  switch (type) {
    case MessageType.TEXT:
      return { type, text: validText(input.text), content: null };
    case MessageType.MEDIA: {
      const ids = input.media?.ids ?? [];
      if (!ids.length || ids.length > MAX_MEDIA_PER_MESSAGE)
        bad(`a media message carries 1 to ${MAX_MEDIA_PER_MESSAGE} mediaIds`, 'input.mediaIds');
      ids.forEach((id) => requireId(id, 'input.mediaIds'));
      return { type, text: optionalText(input.text), content: { mediaIds: [...new Set(ids)] } };
    }
    case MessageType.LOCATION: {
      const location = input.location;
      if (!location) bad('a location message needs location', 'input.location');
      if (!(Math.abs(location.latitude) <= 90) || !(Math.abs(location.longitude) <= 180))
        bad('latitude must be within ±90 and longitude within ±180', 'input.location');
      return { type, text: optionalText(input.text), content: { location } };
    }
    case MessageType.CONTACT_CARD: {
      const card = input.contactCard;
      if (!card?.name.trim()) bad('a contact card needs a name', 'input.contactCard.name');
      return { type, text: optionalText(input.text), content: { contactCard: card } };
    }
    case MessageType.BUTTONS: {
      const buttons = input.buttons?.items ?? [];
      if (!buttons.length || buttons.length > MAX_BUTTONS)
        bad(`a buttons message carries 1 to ${MAX_BUTTONS} buttons`, 'input.buttons');
      for (const button of buttons) {
        if (!button.id.trim() || button.id.length > 64)
          bad('each button needs an id of 1-64 characters', 'input.buttons');
        if (!button.title.trim() || button.title.length > 64)
          bad('each button needs a title of 1-64 characters', 'input.buttons');
        if (button.url !== undefined && !/^https?:\/\/\S+$/.test(button.url))
          bad('a button url must be an http(s) URL', 'input.buttons');
      }
      if (new Set(buttons.map((b) => b.id)).size !== buttons.length) bad('button ids must be unique', 'input.buttons');
      return { type, text: validText(input.text), content: { buttons } };
    }
    default:
      return bad('type must be one of TEXT, MEDIA, LOCATION, CONTACT_CARD, BUTTONS', 'input.type');
  }
}

/** A button reply's payload as the platforms allow it (Messenger's quick-reply payload: up to 1000 characters). */
export const MAX_BUTTON_REPLY_ID_LENGTH = 1000;

/** ReceiveMessage's input (issue 16 adds what a messaging platform's user can send besides text and media). */
export interface InboundInput {
  text: string;
  mediaIds: string[];
  location?: Location | undefined;
  contactCard?: ContactCard | undefined;
  buttonReply?: MessageButton | undefined;
}

/**
 * ReceiveMessage: TEXT needs text; with media ids it is a MEDIA message of 1-10 media (the text is the caption); with
 * a location, a contact card or a button reply (at most one kind of content) it is LOCATION, CONTACT_CARD or BUTTONS
 * under SendMessage's rules, except that a button reply's id is the platform's payload (1-1000 characters).
 */
export function validInbound(input: InboundInput): ValidMessage {
  const kinds = [input.mediaIds.length > 0, !!input.location, !!input.contactCard, !!input.buttonReply];
  if (kinds.filter(Boolean).length > 1)
    bad('a message carries one of mediaIds, location, contactCard or buttonReply', 'mediaIds');
  if (input.location) {
    const location = input.location;
    if (!(Math.abs(location.latitude) <= 90) || !(Math.abs(location.longitude) <= 180))
      bad('latitude must be within ±90 and longitude within ±180', 'location');
    return { type: MessageType.LOCATION, text: optionalText(input.text), content: { location } };
  }
  if (input.contactCard) {
    const card = input.contactCard;
    if (!card.name.trim()) bad('a contact card needs a name', 'contactCard.name');
    return { type: MessageType.CONTACT_CARD, text: optionalText(input.text), content: { contactCard: card } };
  }
  if (input.buttonReply) {
    const { id, title } = input.buttonReply;
    if (!id.trim() || id.length > MAX_BUTTON_REPLY_ID_LENGTH)
      bad(`a button reply needs an id of 1-${MAX_BUTTON_REPLY_ID_LENGTH} characters`, 'buttonReply.id');
    if (!title.trim() || title.length > MAX_TEXT_LENGTH) bad('a button reply needs a title', 'buttonReply.title');
    return {
      type: MessageType.BUTTONS,
      text: validText(input.text || title, 'text'),
      content: { buttons: [{ id, title }] },
    };
  }
  if (!input.mediaIds.length) return { type: MessageType.TEXT, text: validText(input.text, 'text'), content: null };
  if (input.mediaIds.length > MAX_MEDIA_PER_MESSAGE)
    bad(`a media message carries 1 to ${MAX_MEDIA_PER_MESSAGE} mediaIds`, 'mediaIds');
  input.mediaIds.forEach((id) => requireId(id, 'mediaIds'));
  if (input.text.length > MAX_TEXT_LENGTH) bad(`text must be at most ${MAX_TEXT_LENGTH} characters`, 'text');
  return { type: MessageType.MEDIA, text: input.text, content: { mediaIds: [...new Set(input.mediaIds)] } };
}

/**
 * SendMessage's idempotency keys share `messages.external_id` with the channels' message ids, under a prefix no
 * channel id may carry, so a visitor's client id can never answer for (or block) a flow's message.
 */
const IDEMPOTENCY_PREFIX = 'idem:';
export const MAX_IDEMPOTENCY_KEY_LENGTH = MAX_EXTERNAL_ID_LENGTH - IDEMPOTENCY_PREFIX.length;

/** The channel's own message id (idempotency key within the chat): absent or 1-200 characters, not "idem:…". */
export function validExternalId(externalId: string | undefined): string | null {
  if (externalId === undefined) return null;
  if (!externalId.trim() || externalId.length > MAX_EXTERNAL_ID_LENGTH)
    bad(`externalId must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters`, 'externalId');
  if (externalId.startsWith(IDEMPOTENCY_PREFIX))
    bad(`externalId must not start with "${IDEMPOTENCY_PREFIX}"`, 'externalId');
  return externalId;
}

/** SendMessage's `idempotencyKey` as it is stored in `external_id`: absent, or 1-195 characters behind the prefix. */
export function idempotencyExternalId(key: string | undefined): string | null {
  if (key === undefined) return null;
  if (!key.trim() || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    bad(`idempotencyKey must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, 'idempotencyKey');
  return `${IDEMPOTENCY_PREFIX}${key}`;
}
