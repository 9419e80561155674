import type { ServiceDefinition } from '@grpc/grpc-js';
import { ChannelsServiceService } from '@svc/proto/channels/v1';
import { BotSettingsServiceService } from '@svc/proto/channels/v1/bot_settings';
import { DeliveryServiceService } from '@svc/proto/channels/v1/delivery';
import { PlatformChannelsServiceService } from '@svc/proto/channels/v1/platform_channels';
import { ChatAppATemplatesServiceService } from '@svc/proto/channels/v1/templates';
import { ContactsServiceService } from '@svc/proto/contacts/v1';
import { ContactErasureServiceService } from '@svc/proto/contacts/v1/erasure';
import { HelpArticleServiceService } from '@svc/proto/content/v1/help_articles';
import { HelpFolderServiceService } from '@svc/proto/content/v1/help_folders';
import { ContentPublicServiceService } from '@svc/proto/content/v1/public';
import { PartnerUsageServiceService } from '@svc/proto/partner/v1/partner_usage';
import { PartnerWebhookServiceService } from '@svc/proto/partner/v1/partner_webhooks';
import { ErasureParticipantServiceService } from '@svc/proto/erasure/v1';
import { PeopleFieldsServiceService } from '@svc/proto/contacts/v1/people_fields';
import { NewsPostServiceService } from '@svc/proto/content/v1/news_posts';
import { TaxonomyServiceService } from '@svc/proto/content/v1/taxonomy';
import { FlowsServiceService } from '@svc/proto/flows/v1';
import { IdentityServiceService } from '@svc/proto/identity/v1';
import { ClientOrgServiceService } from '@svc/proto/identity/v1/client_orgs';
import { InboxServiceService } from '@svc/proto/inbox/v1';
import { CollectionServiceService } from '@svc/proto/inbox/v1/collections';
import { LabelServiceService } from '@svc/proto/inbox/v1/labels';
import { MediaServiceService } from '@svc/proto/inbox/v1/media';
import { SearchServiceService } from '@svc/proto/inbox/v1/search';
import { VisitorServiceService } from '@svc/proto/inbox/v1/visitor';
import { WebhookIngressServiceService } from '@svc/proto/webhooks/v1';

/**
 * How a client calls another service (docs/decisions/0064-grpc-deadlines-and-retries.md): every call has a deadline;
 * a call that changes nothing, or whose repetition has the effect of one call, is retried when it fails UNAVAILABLE.
 */
export interface GrpcCallPolicy {
  /** Deadline of a call, in ms (GRPC_DEADLINE_MS). */
  deadlineMs: number;
  /** Attempts at an idempotent call answered UNAVAILABLE, the first included; 1: no retries (GRPC_RETRY_ATTEMPTS). */
  retryAttempts: number;
  /** Deadline of the media uploads, which carry up to files × MEDIA_MAX_BYTES, in ms. */
  uploadDeadlineMs: number;
}

export const DEFAULT_CALL_POLICY: GrpcCallPolicy = { deadlineMs: 10_000, retryAttempts: 3, uploadDeadlineMs: 60_000 };

/** Every service of proto/svc; `call-policy.test.ts` fails when a generated one is missing. */
export const SERVICE_DEFINITIONS: ServiceDefinition[] = [
  IdentityServiceService,
  ClientOrgServiceService,
  InboxServiceService,
  LabelServiceService,
  CollectionServiceService,
  MediaServiceService,
  SearchServiceService,
  VisitorServiceService,
  ContactsServiceService,
  ContactErasureServiceService,
  PeopleFieldsServiceService,
  FlowsServiceService,
  WebhookIngressServiceService,
  ChannelsServiceService,
  PlatformChannelsServiceService,
  BotSettingsServiceService,
  ChatAppATemplatesServiceService,
  DeliveryServiceService,
  ErasureParticipantServiceService,
  HelpArticleServiceService,
  HelpFolderServiceService,
  NewsPostServiceService,
  TaxonomyServiceService,
  ContentPublicServiceService,
  PartnerWebhookServiceService,
  PartnerUsageServiceService,
];

/**
 * The naming rule of the protos: Get…, List…, Find…, Search…, Count…, Resolve…, Verify…, Preview…, Is… change nothing; Lookup…
 * (contacts records a chat it learnt of) and Authenticate (identity notes a key's last use) have the effect of one
 * call however often they run.
 */
const IDEMPOTENT = /^(Get|List|Find|Search|Count|Lookup|Authenticate|Resolve|Verify|Preview|Is)([A-Z]|$)/;

const UPLOADS = [MediaServiceService.createMedia.path, MediaServiceService.uploadMultipleMedia.path];

/** `/svc.inbox.v1.InboxService/GetChat` → the service config's name of that method. */
function methodName(path: string): { service: string; method: string } {
  const [, service = '', method = ''] = path.split('/');
  return { service, method };
}

/** Paths of the methods retried on UNAVAILABLE. */
export const IDEMPOTENT_METHODS: string[] = SERVICE_DEFINITIONS.flatMap((service) =>
  Object.values(service)
    .map((method) => method.path)
    .filter((path) => IDEMPOTENT.test(methodName(path).method)),
);

/**
 * A method config timeout. The object form: grpc-js 1.14 reads the nanos of the string form from the digits after the
 * point as written ("0.2s" becomes 2 ns), so a fractional string deadline would expire at once.
 */
function duration(ms: number): { seconds: number; nanos: number } {
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 };
}

/** The grpc-js service config (gRFC A6 retry policy, per-method timeouts) and round-robin over every resolved pod. */
export function grpcServiceConfig(policy: GrpcCallPolicy): object {
  const timeout = duration(policy.deadlineMs);
  const retryPolicy =
    policy.retryAttempts > 1
      ? {
          retryPolicy: {
            maxAttempts: policy.retryAttempts,
            initialBackoff: '0.1s',
            maxBackoff: '1s',
            backoffMultiplier: 2,
            retryableStatusCodes: ['UNAVAILABLE'],
          },
        }
      : {};
  return {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: [
      { name: [{}], timeout },
      { name: IDEMPOTENT_METHODS.map(methodName), timeout, ...retryPolicy },
      { name: UPLOADS.map(methodName), timeout: duration(policy.uploadDeadlineMs) },
    ],
  };
}

/**
 * Channel options for every gRPC client: `round_robin` over every address the name resolves to, so with a headless
 * Service (`dns:///<svc>-headless:50051`) calls spread over all ready pods instead of pinning one HTTP/2 connection;
 * deadlines and retries of the policy.
 */
export function grpcChannelOptions(policy: GrpcCallPolicy = DEFAULT_CALL_POLICY): Record<string, string> {
  return { 'grpc.service_config': JSON.stringify(grpcServiceConfig(policy)) };
}

/**
 * grpc-js keeps channelz statistics of every call (counters, timestamps, a trace) for a channelz service that nothing
 * here serves or reads; the clients and servers turn them off (docs/decisions/0064, amendment of 2026-12-01). Not in
 * `grpcChannelOptions`: Mesh's compose prints those into the supergraph, where only strings fit.
 */
export const WITHOUT_CHANNELZ = { 'grpc.enable_channelz': 0 } as const;

/** The policy of a service's settings. */
export function callPolicyOf(config: {
  GRPC_DEADLINE_MS: number;
  GRPC_RETRY_ATTEMPTS: number;
  GRPC_UPLOAD_DEADLINE_MS: number;
}): GrpcCallPolicy {
  return {
    deadlineMs: config.GRPC_DEADLINE_MS,
    retryAttempts: config.GRPC_RETRY_ATTEMPTS,
    uploadDeadlineMs: config.GRPC_UPLOAD_DEADLINE_MS,
  };
}
