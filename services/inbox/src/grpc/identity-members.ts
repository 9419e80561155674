import type { ServiceError } from '@grpc/grpc-js';
import { LRUCache } from 'lru-cache';
import { domainErrorOf, unary, type Logger, type Peer, type PrincipalSigner, systemPrincipal } from '@svc/kit';
import type { IdentityServiceClient } from '@svc/proto/identity/v1';
import type { MemberDirectory, MemberProfile } from '../domain/members';

/** How long a visitor may see a member's previous name after a change: one identity call per org per minute. */
export const PROFILE_TTL_MS = 60_000;

/**
 * The org's members as identity knows them (SYSTEM principal of the org): `FindMembers` for an assignee, uncached (an
 * assignment must never go to a removed member); `ListTeamMembers` for display names, cached per org for a minute
 * (lru-cache `ttl`; concurrent misses of one org share one call through `fetchMethod`). When identity cannot answer,
 * names are left empty (logged) rather than failing a visitor's history: widget-api then shows the team name.
 */
export function identityMembers(
  identity: Peer<IdentityServiceClient>,
  signer: () => PrincipalSigner,
  logger?: Logger,
): MemberDirectory {
  const profiles = new LRUCache<string, ReadonlyMap<string, MemberProfile>>({
    max: 1_000,
    ttl: PROFILE_TTL_MS,
    fetchMethod: async (orgId) => {
      const client = identity.get();
      try {
        const team = await unary(
          client.listTeamMembers.bind(client),
          {},
          signer().metadata(systemPrincipal(orgId), 'identity'),
        );
        // Identity keeps no avatar yet: the field stays empty until it does.
        return new Map(team.members.map((member) => [member.id, { displayName: member.name, avatarUrl: '' }]));
      } catch (error) {
        throw domainErrorOf(error as ServiceError);
      }
    },
  });
  return {
    async membersOf(orgId, memberIds) {
      const client = identity.get();
      try {
        const found = await unary(
          client.findMembers.bind(client),
          { memberIds },
          signer().metadata(systemPrincipal(orgId), 'identity'),
        );
        return found.memberIds;
      } catch (error) {
        // UNAVAILABLE (or DEADLINE_EXCEEDED) when identity cannot answer: an assignment is refused, never made unchecked.
        throw domainErrorOf(error as ServiceError);
      }
    },
    async profilesOf(orgId) {
      try {
        return (await profiles.fetch(orgId)) ?? new Map();
      } catch (error) {
        logger?.warn({ err: error, orgId }, 'member names unavailable; shown without them');
        return new Map();
      }
    },
  };
}
