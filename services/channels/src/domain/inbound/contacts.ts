import { Conflict, InvalidArgument, type Logger } from '@svc/kit';
import { IdentifierType, type ContactInput } from '@svc/proto/contacts/v1';
import type { ChatContact } from '@svc/proto/inbox/v1';
import type { PlatformUser } from '../../platforms/adapter';
import type { InboundBackends } from './backends';

/**
 * The contact behind a platform user (decision 0137): the one holding the user's CHANNEL_USER_ID identity scoped to
 * the channel, else a new contact with that identity and the name and phone the platform gives. A concurrent create
 * of the same identity (another replica, a retry) loses on contacts' unique identity and finds the winner. A phone the
 * platform vouches for that another contact already holds is the same person reaching us on this platform: the
 * identity is added to that contact instead of creating a second one (the duplicate-contact complaint about other
 * inboxes). A phone contacts cannot read is left out.
 */
export async function resolveContact(
  backends: InboundBackends,
  logger: Logger,
  channel: { orgId: string; channelId: string },
  user: PlatformUser,
): Promise<ChatContact> {
  const { orgId, channelId } = channel;
  const shown = (id: string): ChatContact => ({ _id: id, name: user.name || user.username, phone: user.phone });
  const known = () => backends.lookupContact(orgId, IdentifierType.CHANNEL_USER_ID, user.platformUserId, channelId);
  const existing = await known();
  if (existing) return shown(existing);
  const identity = {
    type: IdentifierType.CHANNEL_USER_ID,
    value: user.platformUserId,
    channelIntegrationId: channelId,
  };
  let input: ContactInput = { name: user.name || user.username, phone: user.phone, identities: [identity] };
  for (;;) {
    try {
      return shown((await backends.createContact(orgId, input)).id);
    } catch (error) {
      const field = error instanceof Conflict || error instanceof InvalidArgument ? error.details.field : undefined;
      if (field === 'identities' && error instanceof Conflict) {
        const winner = await known();
        if (winner) return shown(winner);
      } else if (field === 'phone' && input.phone !== undefined && error instanceof Conflict) {
        const holder = await backends.lookupContact(orgId, IdentifierType.PHONE_NUMBER, input.phone);
        if (holder) {
          await backends.updateContact(orgId, holder, { identities: [identity] });
          return shown(holder);
        }
      } else if (field === 'phone' && input.phone !== undefined) {
        logger.info({ channelId }, 'platform user phone not readable by contacts: left out');
        input = { ...input, phone: undefined };
        continue;
      }
      throw error;
    }
  }
}
