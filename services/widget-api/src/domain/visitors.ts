import {
  Conflict,
  Forbidden,
  RateLimited,
  Unauthenticated,
  spendFromBucket,
  type BucketState,
  type Logger,
} from '@svc/kit';
import { IdentityVerification } from '@svc/proto/channels/v1';
import { AttributeSource, IdentifierType, type ContactInput } from '@svc/proto/contacts/v1';
import type { ChatContact } from '@svc/proto/inbox/v1';
import { LRUCache } from 'lru-cache';
import { contactUnknownToInbox, type Backends, type VisitorIdentityOfSession } from './backends';
import type { GoogleIdTokens } from './google-id-token';
import type { Integration } from './integrations';
import { prove, type ClaimedProfile, type VisitorIdentityInput } from './proofs';
import type { SessionTokens } from './session-tokens';
import type { Sessions } from './sessions';

/** A session refused because the inbox no longer knows its contact (UNAUTHENTICATED, 401). */
export class ContactGone extends Unauthenticated {}

export interface AnonymousStart {
  refreshToken?: string;
  name?: string;
  email?: string;
  phone?: string;
}

/** What both handshakes answer (docs/widget-api.md). */
export interface VisitorSession {
  sessionToken: string;
  sessionExpiresAt: string;
  refreshToken: string;
  identified: boolean;
  chatId: string;
  visitor: VisitorIdentityOfSession;
  publicKey: string;
}

export interface HandshakeLimits {
  burst: number;
  windowSeconds: number;
}

/**
 * The handshakes: who the visitor is (a proof, or an anonymous session it already had), its contact, its open chat on
 * the integration, and a session. A verified user id is the contact's CHANNEL_USER_ID on the integration; a claimed
 * email or phone is stored on the contact but never used to find one (docs/decisions/0087).
 */
export class Visitors {
  /** New anonymous visitors per (client address, public key): in-memory buckets, per replica. */
  private readonly buckets = new LRUCache<string, BucketState>({ max: 100_000 });

  constructor(
    private readonly backends: Backends,
    private readonly google: GoogleIdTokens,
    private readonly sessions: Sessions,
    private readonly tokens: SessionTokens,
    private readonly limits: HandshakeLimits,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  async startAnonymous(found: Integration, input: AnonymousStart, clientAddress: string): Promise<VisitorSession> {
    const { orgId, integration } = found;
    if (integration.security?.identityVerification === IdentityVerification.REQUIRED) {
      throw new Forbidden('this integration accepts identified visitors only', { reason: 'IDENTITY_REQUIRED' });
    }
    if (input.refreshToken) {
      // The same visitor coming back: its session again (rotated), unless it was an identified one (shutdown and
      // identify(null) start a fresh anonymous visitor).
      const current = await this.sessions.current(input.refreshToken, integration.id);
      if (current && !current.userId) {
        const issued = await this.sessions.rotate(input.refreshToken, integration.id);
        // A session of an erased contact (widget-api's erasure not run yet) ends: a new visitor, as once it is erased.
        const answered = await this.answer(found, issued.session, issued.refreshToken).catch((error: unknown) => {
          if (error instanceof ContactGone) return undefined;
          throw error;
        });
        if (answered) return answered;
      } else if (current) await this.sessions.end(current.id);
    }
    this.spend(`${clientAddress}\u0000${integration.publicKey}`);
    const contact = await this.saveContact(orgId, undefined, [], { ...input });
    const issued = await this.sessions.create({ orgId, channelId: integration.id, contactId: contact._id, userId: '' });
    return this.answer(found, issued.session, issued.refreshToken, contact);
  }

  async startIdentified(found: Integration, input: VisitorIdentityInput): Promise<VisitorSession> {
    const { orgId, integration } = found;
    const proven = await prove(input, found, this.backends, this.google);
    const profile: ClaimedProfile = {
      name: input.name ?? proven.provenProfile.name,
      email: input.email ?? proven.provenProfile.email,
      phone: input.phone ?? proven.provenProfile.phone,
      attributes: input.attributes,
    };
    const existing = await this.backends.contactOfUser(orgId, integration.id, proven.userId);
    const identity = [
      { type: IdentifierType.CHANNEL_USER_ID, value: proven.userId, channelIntegrationId: integration.id },
    ];
    const contact = await this.saveContact(orgId, existing, existing ? [] : identity, profile);
    if (input.refreshToken) await this.adoptAnonymous(found, input.refreshToken, contact);
    const issued = await this.sessions.create({
      orgId,
      channelId: integration.id,
      contactId: contact._id,
      userId: proven.userId,
    });
    return this.answer(found, issued.session, issued.refreshToken, contact);
  }

  /** A refresh: the same session, a new session token and refresh token. */
  async refresh(found: Integration, refreshToken: string): Promise<VisitorSession> {
    const issued = await this.sessions.rotate(refreshToken, found.integration.id);
    return this.answer(found, issued.session, issued.refreshToken);
  }

  /**
   * The inbox does not know the session's contact (erased, widget-api's own erasure not run yet): the session ends
   * and the caller is answered 401, as it would be once the erasure deleted the session (decision 0174).
   */
  async contactGone(sessionId: string): Promise<ContactGone> {
    await this.sessions.end(sessionId);
    return new ContactGone('visitor session refused: its contact is gone');
  }

  /** Shutdown / identify(null): the session's refresh token stops working (its session token expires on its own). */
  async end({ integration }: Integration, refreshToken: string): Promise<void> {
    const session = await this.sessions.current(refreshToken, integration.id);
    if (session) await this.sessions.end(session.id);
  }

  /**
   * An anonymous visitor identified: its chats on the integration move to the identified contact (as Intercom merges
   * a lead into a user) and its anonymous session ends.
   */
  private async adoptAnonymous(
    { orgId, integration }: Integration,
    refreshToken: string,
    contact: ChatContact,
  ): Promise<void> {
    const anonymous = await this.sessions.current(refreshToken, integration.id);
    if (!anonymous || anonymous.userId || anonymous.contactId === contact._id) return;
    await this.backends.moveChatsToContact(orgId, integration.id, anonymous.contactId, contact);
    await this.sessions.end(anonymous.id);
  }

  /**
   * Creates the contact (with its verified identity) or updates it with the profile. An email or phone another
   * contact holds is a CONFLICT at contacts (identities are unique per org, decision 0013): the visitor only claimed
   * it, so it is left out rather than linking the two.
   */
  private async saveContact(
    orgId: string,
    contactId: string | undefined,
    identities: ContactInput['identities'],
    profile: ClaimedProfile,
  ): Promise<ChatContact> {
    let input: ContactInput = {
      identities,
      name: profile.name,
      email: profile.email,
      phone: profile.phone,
      customAttributesJson: profile.attributes ? JSON.stringify(profile.attributes) : undefined,
      // Known keys are parsed as their people field; unknown keys and invalid values are left out (and counted) by
      // contacts rather than failing the handshake (docs/decisions/0156).
      customAttributesSource: AttributeSource.ATTRIBUTE_SOURCE_TEXT_LENIENT,
    };
    for (;;) {
      try {
        const saved = contactId
          ? await this.backends.updateContact(orgId, contactId, input)
          : await this.backends.createContact(orgId, input);
        // What the inbox shows agents on the chat: the contact as stored (a dropped claim is not shown either).
        return { _id: saved.id, name: saved.name, email: saved.email, phone: saved.phone };
      } catch (error) {
        const field = error instanceof Conflict ? claimedFieldOf(error, input) : undefined;
        if (!field) throw error;
        this.logger.info({ orgId, field }, 'claimed contact detail held by another contact: not stored');
        input = { ...input, [field]: undefined };
      }
    }
  }

  private async answer(
    { integration }: Integration,
    session: { id: string; orgId: string; channelId: string; contactId: string; userId: string },
    refreshToken: string,
    contact: ChatContact = { _id: session.contactId },
  ): Promise<VisitorSession> {
    const visitor = { orgId: session.orgId, channelId: session.channelId, contactId: session.contactId };
    const chat = await this.backends
      .openChat(session.orgId, session.channelId, contact)
      .catch(async (error: unknown) => {
        throw contactUnknownToInbox(error) ? await this.contactGone(session.id) : error;
      });
    const signed = await this.tokens.sign({ sessionId: session.id, publicKey: integration.publicKey, ...visitor });
    return {
      sessionToken: signed.token,
      sessionExpiresAt: new Date(signed.expiresAt).toISOString(),
      refreshToken,
      identified: !!session.userId,
      chatId: chat._id,
      visitor,
      publicKey: integration.publicKey,
    };
  }

  private spend(key: string): void {
    const rate = { capacity: this.limits.burst, refillPerSecond: this.limits.burst / this.limits.windowSeconds };
    const spent = spendFromBucket(this.buckets.get(key), 1, this.clock(), rate);
    this.buckets.set(key, spent.bucket);
    if (!spent.ok) {
      throw new RateLimited('too many new visitors from this address', {
        retryAfterSeconds: String(spent.retryAfterSeconds),
      });
    }
  }
}

/** The claimed detail a CONFLICT is about (contacts names the argument as the error's field), if we may drop it. */
function claimedFieldOf(error: Conflict, input: ContactInput): 'email' | 'phone' | undefined {
  const field = error.details.field;
  return (field === 'email' || field === 'phone') && input[field] !== undefined ? field : undefined;
}
