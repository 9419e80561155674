import type { ServiceError } from '@grpc/grpc-js';
import type { ChannelType, ChannelsServiceClient } from '@svc/proto/channels/v1';
import { Unavailable } from '../errors';
import { systemPrincipal } from '../principal';
import type { PrincipalSigner } from '../trust/signer';
import { domainErrorOf, unary } from './client';
import type { Peer } from './peer';

/**
 * The ids among `channelIds` that name channels of the org that are not deleted (of one kind when `type` is given):
 * always channels, which owns them.
 */
export type ChannelsOfOrg = (orgId: string, channelIds: string[], type?: ChannelType) => Promise<string[]>;

/**
 * Asks channels (`FindChannels`, SYSTEM of the org) which channel ids a write may store (docs/decisions/0042).
 * Channels unconfigured or unreachable is UNAVAILABLE, and its other refusals keep their codes, so the write fails
 * rather than storing an id nobody checked. `signer` is read at each call: it exists once the service has its key.
 */
export function channelsOfOrg(peer: Peer<ChannelsServiceClient>, signer: () => PrincipalSigner): ChannelsOfOrg {
  return async (orgId, channelIds, type) => {
    if (!channelIds.length) return [];
    let client: ChannelsServiceClient;
    try {
      client = peer.get();
    } catch {
      throw new Unavailable('the channels service is not configured (CHANNELS_GRPC_URL)');
    }
    try {
      const found = await unary(
        client.findChannels.bind(client),
        { channelIds, type },
        signer().metadata(systemPrincipal(orgId), 'channels'),
      );
      return found.channelIds;
    } catch (error) {
      throw domainErrorOf(error as ServiceError);
    }
  };
}
