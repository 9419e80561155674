import type { EntityManager } from 'typeorm';

/**
 * The erasure saga's one topic: `contact.erase_requested` (contacts) and `contact.erase_confirmed` (each
 * participant), key the contact id, payload `svc.events.v1.ErasureEvent` (docs/erasure.md).
 */
export const ERASURE_TOPIC = 'svc.contacts.erasure.v1';
export const ERASE_REQUESTED = 'contact.erase_requested';
export const ERASE_CONFIRMED = 'contact.erase_confirmed';

/**
 * Every service that keeps data about a contact, in the order a receipt lists them. An erasure is complete once each
 * of them confirmed its part; contacts erases its own part with the request. One source: contacts' receipt, the
 * preview fan-out and the docs' table are checked against this list.
 */
export const ERASURE_PARTICIPANTS = [
  'contacts',
  'inbox',
  'channels',
  'flows',
  'webhook-ingress',
  'widget-api',
  'partner',
] as const;
export type ErasureParticipantName = (typeof ERASURE_PARTICIPANTS)[number];

/**
 * Deprovisioning a client org (`deprovisionClientOrg`, docs/erasure.md "Erasing an org") is the same saga for a whole
 * org: identity records the request and erases its own part (members, sessions, keys) with it, writing
 * `org.erase_requested` (key and envelope org: the client org); every other participant deletes the org's rows in its
 * own database and writes `org.erase_confirmed` with its counts; identity marks the org DEPROVISIONED once all did.
 * Payload `svc.events.v1.ErasureEvent` with `contact_id` empty.
 */
export const ORG_ERASURE_TOPIC = 'svc.identity.orgs.v1';
export const ORG_ERASE_REQUESTED = 'org.erase_requested';
export const ORG_ERASE_CONFIRMED = 'org.erase_confirmed';
/**
 * Every service that keeps an org's data, in the order a deprovisioning lists them: identity (first: its part is erased
 * with the request), every contact erasure participant (each keeps data about an org's contacts), then content.
 */
export const ORG_ERASURE_PARTICIPANTS = ['identity', ...ERASURE_PARTICIPANTS, 'content'] as const;
export type OrgErasureParticipantName = (typeof ORG_ERASURE_PARTICIPANTS)[number];

/** How many things of one kind (e.g. `messages`) a part removes or anonymises. */
export interface ErasureKindCount {
  kind: string;
  count: number;
}

/** One requested erasure, as every participant receives it. */
export interface ContactErasure {
  erasureId: string;
  orgId: string;
  contactId: string;
}

/** What one participant did inside its erasure transaction, and what is left to do once it committed. */
export interface ErasedPart {
  counts: ErasureKindCount[];
  /**
   * Work outside the database (blobs, caches, open connections), run after the transaction committed. Must be
   * idempotent and must not lose work if the process dies before or during it (e.g. blob keys recorded in a table
   * inside the transaction and swept), because the confirmation is already committed by then.
   */
  afterCommit?: () => Promise<void>;
}

/**
 * One service's part of erasing a contact. `preview` and `erase` cover exactly the same rows, so the counts a
 * preview shows are the counts the erasure confirms when nothing changed in between.
 */
export interface ErasurePart {
  readonly service: ErasureParticipantName;
  /** What `erase` would remove or anonymise now, by kind (every kind listed, zeros included). */
  preview(orgId: string, contactId: string): Promise<ErasureKindCount[]>;
  /**
   * Erases the contact's data in this service's database inside `manager`'s transaction; the confirmation event is
   * written to the outbox in the same transaction by the chassis. Idempotent: a redelivered request finds nothing
   * left and confirms zeros (contacts keeps the first confirmation of each participant).
   */
  erase(manager: EntityManager, erasure: ContactErasure): Promise<ErasedPart>;
}
