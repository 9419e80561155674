import type { DataSource } from 'typeorm';
import type { SecretKeyring } from '@svc/kit';
import { type ChannelStatus } from '@svc/proto/channels/v1';
import { ChannelRow, PlatformChannelRow } from '../entities';
import type { ConnectedChannel, PlatformAccount } from '../platforms/adapter';

/** A platform channel as the inbound route, the consumers and the sender need it. */
export interface LoadedPlatformChannel {
  channel: ConnectedChannel;
  name: string;
  status: ChannelStatus;
  aiAutoReply: boolean;
  /** Disconnected (the channel row's deleted_at): nothing is accepted or sent any more. */
  disconnected: boolean;
}

/**
 * Reads platform channels with their secrets opened, and seals what is written. Sealed values carry the row's org and
 * channel id as associated data (decision 0014), so a value copied to another row does not open.
 */
export class PlatformChannels {
  constructor(
    private readonly dataSource: DataSource,
    readonly keyring: SecretKeyring,
  ) {}

  sealCredentials(credentials: Record<string, string>, owner: { orgId: string; id: string }): string {
    return this.keyring.seal(JSON.stringify(credentials), owner);
  }

  sealWebhookSecret(secret: string, owner: { orgId: string; id: string }): string {
    return secret ? this.keyring.seal(secret, owner) : '';
  }

  /** Any org's channel by id (the inbound route knows no org); undefined when it is not a platform channel. */
  async load(channelId: string): Promise<LoadedPlatformChannel | undefined> {
    const row = await this.dataSource.getRepository(PlatformChannelRow).findOneBy({ id: channelId });
    if (!row) return undefined;
    const base = await this.dataSource.getRepository(ChannelRow).findOneBy({ id: channelId });
    if (!base) return undefined;
    return this.opened(row, base);
  }

  opened(row: PlatformChannelRow, base: ChannelRow): LoadedPlatformChannel {
    const owner = { orgId: row.orgId, id: row.id };
    const disconnected = base.deletedAt !== null;
    return {
      channel: {
        channelId: row.id,
        orgId: row.orgId,
        type: row.type,
        account: JSON.parse(row.account) as PlatformAccount,
        credentials: disconnected
          ? {}
          : (JSON.parse(this.keyring.open(row.credentialsSealed, owner)) as Record<string, string>),
        webhookSecret:
          row.webhookSecretSealed && !disconnected ? this.keyring.open(row.webhookSecretSealed, owner) : '',
      },
      name: base.name,
      status: base.status,
      aiAutoReply: row.aiAutoReply,
      disconnected,
    };
  }
}
