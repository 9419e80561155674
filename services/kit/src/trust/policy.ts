import { PrincipalKind, type Principal } from '@svc/proto/common/v1';

/** The deployables that verify principal tokens: each is the `aud` of the tokens sent to it. */
export const AUDIENCES = [
  'identity',
  'inbox',
  'contacts',
  'webhook-ingress',
  'flows',
  'channels',
  'widget-api',
  'content',
  'partner',
] as const;
export type Audience = (typeof AUDIENCES)[number];

/**
 * What a token's principal is, as far as who may present it goes: a caller the gateway authenticated (an API key or a
 * dashboard session), a caller without credentials, SYSTEM acting for one org, SYSTEM for the installation (no org),
 * or a website visitor of one org's web integration (widget-api; its contact and channel named).
 */
export type Presentation = 'user' | 'anonymous' | 'system-of-org' | 'installation' | 'visitor';

/**
 * Which issuer may present which principals to which services (docs/decisions/0065). An issuer is a deployable with
 * its own signing key; a key id names its issuer (`<issuer>.<suffix>`), so a stolen webhook-ingress key signs only
 * webhook-ingress tokens, and those carry SYSTEM of an org to contacts and flows, never a user. `stack` is the
 * embedded default's own seeding (its key exists only in that process). Only widget-api presents a visitor, and only
 * to the inbox (docs/decisions/0081).
 */
export const TRUST_POLICY = {
  gateway: {
    user: AUDIENCES,
    anonymous: ['identity'],
    installation: ['identity'],
  },
  flows: { 'system-of-org': ['identity', 'inbox', 'contacts', 'webhook-ingress'] },
  // contacts and webhook-ingress ask channels whether a channel id they are about to store is the org's (decision 0042).
  'webhook-ingress': { 'system-of-org': ['contacts', 'flows', 'channels'] },
  // contacts asks every other erasure participant what erasing a contact would remove (previewErase, docs/erasure.md).
  contacts: { 'system-of-org': ['inbox', 'channels', 'flows', 'webhook-ingress', 'widget-api', 'partner'] },
  // The inbox asks contacts to erase a deleted conversation's contact (apiDeleteConversation removePeople).
  inbox: { 'system-of-org': ['identity', 'contacts'] },
  stack: { 'system-of-org': ['inbox'], installation: ['identity'] },
  // channels records what a messaging platform's user sends (contacts, chats, messages, media) and reports delivery
  // of what it sent (issue 16), each as SYSTEM of the channel's org.
  channels: { 'system-of-org': ['contacts', 'inbox'] },
  // widget-api resolves public keys (no org yet) and checks visitor proofs for the key's org (docs/decisions/0075),
  // finds and updates the visitor's contact and opens its chat (SYSTEM of the org), and acts in the chat as the visitor.
  'widget-api': {
    installation: ['channels'],
    'system-of-org': ['channels', 'contacts', 'inbox', 'content'],
    visitor: ['inbox'],
  },
  // content asks identity which org a public help-center slug names (no org yet: docs/decisions/0184).
  content: { installation: ['identity'] },
  // partner asks identity which provider an event's client org belongs to, and channels which kind an event's channel
  // is (usage per channel kind), each as SYSTEM of the event's org.
  partner: { 'system-of-org': ['identity', 'channels'] },
} as const satisfies Record<string, Partial<Record<Presentation, readonly Audience[]>>>;

export type Issuer = keyof typeof TRUST_POLICY;
export const ISSUERS = Object.keys(TRUST_POLICY) as Issuer[];

export function isIssuer(name: string): name is Issuer {
  return Object.hasOwn(TRUST_POLICY, name);
}

export function presentationOf(principal: Principal): Presentation | undefined {
  switch (principal.kind) {
    case PrincipalKind.API_KEY:
    case PrincipalKind.MEMBER_SESSION:
      return principal.orgId ? 'user' : undefined;
    case PrincipalKind.ANONYMOUS:
      return 'anonymous';
    case PrincipalKind.SYSTEM:
      return principal.orgId ? 'system-of-org' : 'installation';
    case PrincipalKind.VISITOR:
      return principal.orgId && principal.visitorContactId && principal.visitorChannelId ? 'visitor' : undefined;
    default:
      return undefined;
  }
}

/** Whether `issuer` may present `principal` to `audience`. */
export function mayPresent(issuer: string, audience: string, principal: Principal): boolean {
  if (!isIssuer(issuer)) return false;
  const presentation = presentationOf(principal);
  if (!presentation) return false;
  const audiences: Partial<Record<Presentation, readonly string[]>> = TRUST_POLICY[issuer];
  return audiences[presentation]?.includes(audience) ?? false;
}

/** The first issuer allowed to present `principal` to `audience` (tests and tools that call a service directly). */
export function issuerFor(audience: string, principal: Principal): Issuer {
  const issuer = ISSUERS.find((candidate) => mayPresent(candidate, audience, principal));
  if (!issuer) throw new Error(`no issuer may present this principal to ${audience}`);
  return issuer;
}
