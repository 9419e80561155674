import { ContactRowsErasure } from '@svc/kit';
import {
  ChatAppATemplateSendRow,
  OutboundDeliveryRow,
  OutboundPlatformMessageRow,
  PlatformInboundMessageRow,
} from '../entities';

/** The contact's outbound messages (their ids are the inbox's message ids) and the chats they went to. */
const DELIVERIES = 'SELECT id FROM outbound_deliveries WHERE org_id = :orgId AND contact_id = :contactId';
const DELIVERY_CHATS = 'SELECT chat_id FROM outbound_deliveries WHERE org_id = :orgId AND contact_id = :contactId';

/**
 * What channels keeps about a contact (docs/erasure.md, decision 0170), all deleted:
 * - `template_sends`: the ChatAppA template payloads (their parameters) sent in the contact's chats;
 * - `outbound_deliveries`: what was sent to the contact's platform user id (recipient, platform message ids, the
 *   platform's failure words), with the platform-id → message rows of those messages; a delivery not sent yet never
 *   will be (the sender claims only rows that exist);
 * - `inbound_messages`: the dedupe rows of what the contact sent (platform message id, stored media ids), on the
 *   org's channels.
 * The raw webhook bodies live only on the bus (`svc.channels.inbound.v1`, until its retention), never in a table.
 */
export const CHANNELS_CONTACT_ROWS = new ContactRowsErasure([
  {
    kind: 'template_sends',
    target: ChatAppATemplateSendRow,
    where: `org_id = :orgId AND (message_id IN (${DELIVERIES}) OR chat_id IN (${DELIVERY_CHATS}))`,
  },
  { target: OutboundPlatformMessageRow, where: `org_id = :orgId AND message_id IN (${DELIVERIES})` },
  { kind: 'outbound_deliveries', target: OutboundDeliveryRow, where: 'org_id = :orgId AND contact_id = :contactId' },
  {
    kind: 'inbound_messages',
    target: PlatformInboundMessageRow,
    where: 'contact_id = :contactId AND channel_id IN (SELECT id FROM channels WHERE org_id = :orgId)',
  },
]);
