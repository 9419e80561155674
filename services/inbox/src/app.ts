import * as path from 'node:path';
import type Router from '@koa/router';
import {
  ERASURE_PARTICIPANT_GRPC_SERVICE,
  Peer,
  ServiceApp,
  addErasureParticipant,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  callPolicyOf,
  subscribeErasure,
  type ErasurePart,
  type ReadinessCheck,
  type ServiceAppDeps,
  type Subscription,
  stopTogether,
} from '@svc/kit';
import { ContactsServiceClient } from '@svc/proto/contacts/v1';
import { ContactErasureServiceClient } from '@svc/proto/contacts/v1/erasure';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { InboxServiceService } from '@svc/proto/inbox/v1';
import { CollectionServiceService } from '@svc/proto/inbox/v1/collections';
import { LabelServiceService } from '@svc/proto/inbox/v1/labels';
import { MediaServiceService } from '@svc/proto/inbox/v1/media';
import { SearchServiceService } from '@svc/proto/inbox/v1/search';
import { VisitorServiceService } from '@svc/proto/inbox/v1/visitor';
import type { InboxConfig } from './config';
import { inboxData } from './data';
import { inboxDomain, type InboxDomain, type MemberDirectory } from './domain';
import { inboxOrgPart } from './domain/erasure/org-part';
import { ContactCopy, subscribeContactCopy } from './domain/contact-copy';
import { CHATS_TOPIC, MESSAGES_TOPIC } from './domain/events';
import { MediaLinks } from './domain/media-links';
import { MemberRemoval, subscribeMemberRemoval } from './domain/member-removal';
import { collectionService } from './grpc/collection-handlers';
import { contactErasureRequests, contactsDirectory } from './grpc/contacts-directory';
import { identityMembers } from './grpc/identity-members';
import { inboxService } from './grpc/inbox-handlers';
import { labelService } from './grpc/label-handlers';
import { mediaService } from './grpc/media-handlers';
import { searchService } from './grpc/search-handlers';
import { visitorService } from './grpc/visitor-handlers';
import { mediaRouter } from './http/media-router';
import type { BlobStore } from './storage/blob-store';
import { LocalDiskBlobStore } from './storage/local-disk-blob-store';

/**
 * The gRPC services this deployable serves; each but VisitorService (widget-api's) and ErasureParticipantService
 * (contacts') is a subgraph of the gateway.
 */
export const INBOX_GRPC_SERVICES = [
  'svc.inbox.v1.InboxService',
  'svc.inbox.v1.LabelService',
  'svc.inbox.v1.CollectionService',
  'svc.inbox.v1.SearchService',
  'svc.inbox.v1.MediaService',
  'svc.inbox.v1.VisitorService',
  ERASURE_PARTICIPANT_GRPC_SERVICE,
] as const;

export interface InboxDeps extends ServiceAppDeps {
  /** Where identity listens, read at first use (the embedded stack knows it only after start). */
  identityAddress?: () => string;
  /** Where contacts listens, read at first use (the embedded stack starts contacts after the inbox). */
  contactsAddress?: () => string;
}

/** How often removed media's bytes still recorded for deletion are retried (docs/decisions/0166). */
const BLOB_SWEEP_INTERVAL_MS = 60_000;

/** Room for a whole uploadMultipleMedia call in one gRPC message, plus framing. */
const grpcMessageLimit = (config: InboxConfig) => config.MEDIA_MAX_BYTES * config.MEDIA_MAX_FILES + 1024 * 1024;

export class InboxApp extends ServiceApp<InboxConfig> {
  readonly blobs: BlobStore;
  readonly mediaLinks: MediaLinks;
  /** `GET /media/:id` (signed links); the embedded stack mounts it on its public port. */
  router: Router | undefined;
  private readonly identity: Peer<IdentityServiceClient>;
  private readonly contacts: Peer<ContactsServiceClient>;
  private readonly contactErasures: Peer<ContactErasureServiceClient>;
  /** Who the org's members are (to check an assignee): always identity (`FindMembers`). */
  private readonly members: MemberDirectory;
  private memberRemoval: MemberRemoval | undefined;
  /** Consumes identity's `member.removed` (svc.identity.members.v1) to unassign the removed member's chats. */
  private memberRemovalConsumer: Subscription | undefined;
  private domain: InboxDomain | undefined;
  /** Consumes `contact.erase_requested` (svc.contacts.erasure.v1): erases the contact's part here and confirms. */
  private erasureConsumer: Subscription | undefined;
  /** Consumes `org.erase_requested` (svc.identity.orgs.v1): deletes a deprovisioned org's rows and media here. */
  private orgErasure: OrgErasureParticipant | undefined;
  /** Consumes contacts' `contact.updated` (svc.contacts.people.v1) to keep the copy of display fields fresh. */
  private contactCopyConsumer: Subscription | undefined;
  private blobSweeps: NodeJS.Timeout | undefined;
  private blobSweep: Promise<unknown> = Promise.resolve();

  constructor(config: InboxConfig, deps: InboxDeps = {}) {
    super(
      {
        name: 'inbox',
        grpcServices: [...INBOX_GRPC_SERVICES],
        data: inboxData,
        publishes: [MESSAGES_TOPIC, CHATS_TOPIC, ORG_ERASURE_TOPIC],
        grpcMaxReceiveBytes: grpcMessageLimit(config),
      },
      config,
      deps,
    );
    this.blobs = new LocalDiskBlobStore(path.resolve(config.MEDIA_DIR));
    this.mediaLinks = new MediaLinks({
      secret: config.MEDIA_URL_SECRET,
      ttlSeconds: config.MEDIA_URL_TTL_SECONDS,
      publicUrl: config.MEDIA_PUBLIC_URL,
    });
    this.identity = new Peer(
      IdentityServiceClient,
      deps.identityAddress ?? (() => config.IDENTITY_GRPC_URL),
      callPolicyOf(config),
    );
    const contactsAddress = deps.contactsAddress ?? (() => config.CONTACTS_GRPC_URL);
    this.contacts = new Peer(ContactsServiceClient, contactsAddress, callPolicyOf(config));
    this.contactErasures = new Peer(ContactErasureServiceClient, contactsAddress, callPolicyOf(config));
    this.members = identityMembers(this.identity, () => this.signer, this.logger.child({ component: 'members' }));
  }

  /** The inbox's part of erasing a contact (once registered): what the erasure consumer and PreviewErasure run. */
  get erasure(): ErasurePart | undefined {
    return this.domain?.erasure;
  }

  override readinessChecks(): Record<string, ReadinessCheck> {
    return { ...super.readinessChecks(), 'inbox.media': () => this.blobs.healthy() };
  }

  protected register(): void {
    const domain = (this.domain = inboxDomain(
      this.dataSource,
      () => this.relay,
      {
        blobs: this.blobs,
        links: this.mediaLinks,
        limits: { maxBytes: this.config.MEDIA_MAX_BYTES, maxFiles: this.config.MEDIA_MAX_FILES },
        logger: this.logger.child({ component: 'media' }),
      },
      this.members,
      contactErasureRequests(this.contactErasures, () => this.signer),
    ));
    const deps = { verifier: this.verifier, logger: this.logger };
    this.grpc.add(InboxServiceService, inboxService(domain, deps), 'svc.inbox.v1.InboxService');
    this.grpc.add(LabelServiceService, labelService(domain.labels, deps), 'svc.inbox.v1.LabelService');
    this.grpc.add(
      CollectionServiceService,
      collectionService(domain.collections, deps),
      'svc.inbox.v1.CollectionService',
    );
    this.grpc.add(SearchServiceService, searchService(domain.search, deps), 'svc.inbox.v1.SearchService');
    this.grpc.add(MediaServiceService, mediaService(domain.media, deps), 'svc.inbox.v1.MediaService');
    this.grpc.add(VisitorServiceService, visitorService(domain.visitor, deps), 'svc.inbox.v1.VisitorService');
    addErasureParticipant(this.grpc, domain.erasure, deps);
    this.orgErasure = new OrgErasureParticipant(this, inboxOrgPart(domain.blobDeletions));
    this.router = mediaRouter(this.dataSource, this.blobs, this.mediaLinks);
    this.memberRemoval = new MemberRemoval(this.dataSource, () => this.relay);
  }

  protected override async startWorkers(): Promise<void> {
    if (!this.memberRemoval || !this.domain) return;
    this.memberRemovalConsumer = await subscribeMemberRemoval(
      this.bus,
      this.memberRemoval,
      this.config.KAFKA_TOPIC_PREFIX,
      this.logger,
    );
    this.erasureConsumer = await subscribeErasure(
      this.bus,
      this.dataSource,
      this.relay,
      this.domain.erasure,
      this.config.KAFKA_TOPIC_PREFIX,
      this.logger.child({ component: 'erasure' }),
    );
    await this.orgErasure?.start();
    this.contactCopyConsumer = await subscribeContactCopy(
      this.bus,
      new ContactCopy(
        this.dataSource,
        contactsDirectory(this.contacts, () => this.signer),
      ),
      this.config.KAFKA_TOPIC_PREFIX,
      this.logger.child({ component: 'contact-copy' }),
    );
    this.startBlobSweeps(this.domain);
  }

  /** Now (a previous process may have been killed before deleting removed media's bytes), then every minute. */
  private startBlobSweeps(domain: InboxDomain): void {
    const sweep = () =>
      (this.blobSweep = this.blobSweep
        .then(() => domain.blobDeletions.sweep())
        .then((deleted) => deleted && this.logger.info({ deleted }, 'removed media bytes swept'))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'media blob sweep failed; retried later')));
    void sweep();
    this.blobSweeps = setInterval(() => void sweep(), BLOB_SWEEP_INTERVAL_MS);
    this.blobSweeps.unref();
  }

  protected override httpRouters(): Router[] {
    return this.router ? [this.router] : [];
  }

  protected override async stopWorkers(): Promise<void> {
    clearInterval(this.blobSweeps);
    const consumers = [this.memberRemovalConsumer, this.erasureConsumer, this.orgErasure, this.contactCopyConsumer];
    this.memberRemovalConsumer = undefined;
    this.erasureConsumer = undefined;
    this.contactCopyConsumer = undefined;
    await stopTogether([{ stop: () => this.blobSweep }, ...consumers]);
    this.identity.close();
    this.contacts.close();
    this.contactErasures.close();
  }
}
