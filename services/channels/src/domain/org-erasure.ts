import { OrgRowsErasure, orgRowsPart } from '@svc/kit';
import { ChannelRow, PlatformInboundEventRow, PlatformInboundMessageRow } from '../entities';

/**
 * What channels deletes of a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221): its channels with
 * their sealed credentials, webhook and identity secrets, web integrations, connect states, templates and template
 * sends, outbound deliveries (one not sent yet never will be: the sender claims only rows that exist) and their
 * platform ids, and the inbound dedupe rows of its channels. The inbound event marks name platform events, not orgs.
 */
export const CHANNELS_ORG_ROWS = new OrgRowsErasure({
  children: [{ target: PlatformInboundMessageRow, parent: ChannelRow, column: 'channelId' }],
  noOrgData: [PlatformInboundEventRow],
});

export const channelsOrgPart = () => orgRowsPart('channels', CHANNELS_ORG_ROWS);
