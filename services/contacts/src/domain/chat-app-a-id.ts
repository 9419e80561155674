import type { EntityManager } from 'typeorm';
import { FailedPrecondition, MAX_FIND_IDS, type ChannelsOfOrg } from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { IdentifierType } from '@svc/proto/contacts/v1';
import { IdentityRow } from '../entities';
import type { IdentityKey } from './identities';

/** The ids among `chatIds` that name chats of the org, of one channel kind when given: always the inbox (`FindChats`). */
export type ChatsOfOrg = (orgId: string, chatIds: string[], channelType?: ChannelType) => Promise<string[]>;

/** The owners of the ids identities carry: a Chat ID's chat (the inbox), a Channel user ID's channel (channels). */
export interface IdentityOwners {
  chatsOfOrg: ChatsOfOrg;
  channelsOfOrg: ChannelsOfOrg;
}

/**
 * Whether the contact has a ChatAppA chat: from then on its ChatAppA id is bound to a conversation and cannot change
 * (docs/decisions/0155-chat-app-a-id-editable.md). The contact's chats are its CHAT_ID identities; the inbox says
 * which of them are on a CHAT_APP_A channel.
 */
export async function hasChatAppAChat(
  manager: EntityManager,
  owners: IdentityOwners,
  orgId: string,
  contactId: string,
): Promise<boolean> {
  const chats = await manager.find(IdentityRow, {
    select: { value: true },
    where: { orgId, contactId, type: IdentifierType.CHAT_ID },
  });
  const chatIds = chats.map((chat) => chat.value);
  for (let at = 0; at < chatIds.length; at += MAX_FIND_IDS) {
    const found = await owners.chatsOfOrg(orgId, chatIds.slice(at, at + MAX_FIND_IDS), ChannelType.CHAT_APP_A);
    if (found.length) return true;
  }
  return false;
}

/**
 * A contact holds at most one ChatAppA id per ChatAppA channel: an update or upsert giving another user id on a
 * ChatAppA channel where the contact already has one edits it. The old identity is removed here (the new one is added
 * with the others) while the contact has no ChatAppA chat; once it has one, the edit is FAILED_PRECONDITION naming
 * `identities[<i>]` and nothing is written. Ids on other kinds of channels are only ever added.
 */
export async function applyChatAppAIdEdits(
  manager: EntityManager,
  owners: IdentityOwners,
  orgId: string,
  contactId: string,
  identities: IdentityKey[],
): Promise<void> {
  const given = identities.flatMap((key, index) =>
    key.type === IdentifierType.CHANNEL_USER_ID ? [{ key, index }] : [],
  );
  if (!given.length) return;
  const held = await manager.find(IdentityRow, {
    where: { orgId, contactId, type: IdentifierType.CHANNEL_USER_ID },
  });
  const replaced = given.flatMap(({ key, index }) =>
    held
      .filter((identity) => identity.scope === key.scope && identity.value !== key.value)
      .map((identity) => ({ identity, index })),
  );
  if (!replaced.length) return;
  const scopes = [...new Set(replaced.map(({ identity }) => identity.scope))];
  const chatAppA = new Set(await owners.channelsOfOrg(orgId, scopes, ChannelType.CHAT_APP_A));
  const edits = replaced.filter(({ identity }) => chatAppA.has(identity.scope));
  if (!edits.length) return;
  const [first] = edits;
  if (first && (await hasChatAppAChat(manager, owners, orgId, contactId)))
    throw new FailedPrecondition(
      `identities[${first.index}]: the contact's ChatAppA id cannot change once the contact has a ChatAppA chat`,
      { field: `identities[${first.index}]` },
    );
  for (const { identity } of edits) await manager.delete(IdentityRow, { orgId, id: identity.id });
}
