import {
  PrincipalSigner,
  eventually,
  grpcClient,
  importSigningKey,
  newId,
  now,
  systemPrincipal,
  unary,
} from '@svc/kit';
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { MessageDirection } from '@svc/proto/inbox/v1';
import { MessageRow } from '@svc/inbox/dist/src/entities';
import { ChannelStatus } from '@svc/proto/channels/v1';
import { ChannelRow, PlatformChannelRow } from '@svc/channels/dist/src/entities';
import type { PlatformChannelType } from '@svc/channels/dist/src/entities/platform-channel';
import type { StackHarness } from './stack-harness';

export interface DirectlyConnected {
  channelId: string;
  webhookSecret: string;
  /** The channel's inbound webhook URL on the stack's one port. */
  url: string;
}

/**
 * A connected platform channel as the connect operations leave it — validated at the (fake) platform, its webhook
 * registered there, secrets sealed — written straight into the stack's channels database, for suites about what
 * happens after connecting.
 */
export async function connectDirectly(
  harness: StackHarness,
  orgId: string,
  type: PlatformChannelType,
  credentials: Record<string, string>,
  webhookSecret = `secret${newId()}`,
): Promise<DirectlyConnected> {
  const channels = harness.stack.channels;
  const adapter = channels.adapters.get(type);
  if (!adapter || !channels.platformChannels) throw new Error(`no ${type} adapter in the stack`);
  const account = await adapter.validate(credentials);
  const at = now();
  const id = newId(at);
  const url = `${harness.url}/channels/in/${id}`;
  await channels.dataSource.getRepository(ChannelRow).insert({
    id,
    orgId,
    type,
    status: ChannelStatus.ACTIVE,
    name: account.displayName,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
  });
  await channels.dataSource.getRepository(PlatformChannelRow).insert({
    id,
    orgId,
    type,
    connectedAccount: `${type}:${account.externalId}`,
    externalAccountId: account.externalId,
    account: JSON.stringify(account),
    credentialsSealed: channels.platformChannels.sealCredentials(credentials, { orgId, id }),
    webhookSecretSealed: channels.platformChannels.sealWebhookSecret(webhookSecret, { orgId, id }),
    aiAutoReply: false,
    authorizationError: '',
    connectedAt: at,
  });
  await adapter.registerWebhook({ channelId: id, orgId, type, account, credentials, webhookSecret }, url);
  return { channelId: id, webhookSecret, url };
}

/** Sets a channel's status as pauseChannel / resumeChannel / a refused token would. */
export async function setChannelStatus(harness: StackHarness, channelId: string, status: ChannelStatus) {
  await harness.stack.channels.dataSource.getRepository(ChannelRow).update({ id: channelId }, { status });
}

/** The chat a platform user's messages landed in (its contact's latest chat), once the inbound consumer made it. */
export async function chatOfPlatformUser(
  harness: StackHarness,
  orgId: string,
  channelId: string,
  platformUserId: string,
): Promise<string> {
  const key = JSON.stringify(harness.stack.trustKeys.signing.channels);
  const signer = new PrincipalSigner('channels', importSigningKey('channels', key));
  const contacts = grpcClient(ContactsServiceClient, `127.0.0.1:${harness.stack.contacts.grpcPort}`);
  try {
    const chatId = await eventually(async () => {
      const lookup = await unary(
        contacts.lookupContact.bind(contacts),
        { identifierType: IdentifierType.CHANNEL_USER_ID, value: platformUserId, channelIntegrationId: channelId },
        signer.metadata(systemPrincipal(orgId), 'contacts'),
      );
      return lookup.found && lookup.latestChatId ? lookup.latestChatId : undefined;
    });
    // The chat opens before the user's message is stored (and contacts learns of it from an event): wait for the
    // message too, so what a test does next (a reply inside the platform's window) sees it.
    const messages = harness.stack.inbox.dataSource.getRepository(MessageRow);
    await eventually(async () => (await messages.countBy({ chatId, direction: MessageDirection.INBOUND })) > 0);
    return chatId;
  } finally {
    contacts.close();
  }
}
