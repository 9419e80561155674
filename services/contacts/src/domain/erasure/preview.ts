import type { ServiceError } from '@grpc/grpc-js';
import type { DataSource } from 'typeorm';
import {
  ERASURE_PARTICIPANTS,
  Unavailable,
  systemPrincipal,
  unary,
  type ErasureKindCount,
  type ErasureParticipantName,
  type Logger,
  type Peer,
  type PrincipalSigner,
} from '@svc/kit';
import type { ErasurePreview } from '@svc/proto/contacts/v1/erasure';
import type { ErasureParticipantServiceClient } from '@svc/proto/erasure/v1';
import type { ContactsErasurePart } from './own-part';
import { checkContactId, requireContact } from './receipts';

/** Every participant but contacts, which previews its own part in its own database. */
export type RemoteParticipant = Exclude<ErasureParticipantName, 'contacts'>;
export const REMOTE_PARTICIPANTS = ERASURE_PARTICIPANTS.filter(
  (name): name is RemoteParticipant => name !== 'contacts',
);

/** One participant's `PreviewErasure` for a contact of an org. */
export type PreviewOf = (orgId: string, contactId: string) => Promise<ErasureKindCount[]>;

/** A participant that could not answer a preview: not configured, down, or failing. */
class ParticipantUnavailable extends Error {
  constructor(readonly service: RemoteParticipant) {
    super(`${service} did not answer`);
  }
}

/**
 * Asks a participant (`PreviewErasure`, SYSTEM of the org, audience its name). `signer` is read at each call: it
 * exists once the service has its key.
 */
export function remotePreview(
  service: RemoteParticipant,
  peer: Peer<ErasureParticipantServiceClient>,
  signer: () => PrincipalSigner,
  logger: Logger,
): PreviewOf {
  return async (orgId, contactId) => {
    try {
      const client = peer.get();
      const answer = await unary(
        client.previewErasure.bind(client),
        { contactId },
        signer().metadata(systemPrincipal(orgId), service),
      );
      return answer.counts;
    } catch (error) {
      logger.warn({ service, code: (error as ServiceError).code }, 'erasure preview: participant did not answer');
      throw new ParticipantUnavailable(service);
    }
  };
}

/**
 * `previewErase`: contacts' own part counted here, every other participant asked in parallel; the answer lists every
 * participant in the list's order. Writes nothing. Participants that do not answer make it UNAVAILABLE naming each
 * of them (`service`: the first): a preview missing a service would not list what the erasure removes
 * (docs/decisions/0162).
 */
export async function previewErase(
  dataSource: DataSource,
  ownPart: ContactsErasurePart,
  remote: Record<RemoteParticipant, PreviewOf>,
  orgId: string,
  contactId: string,
): Promise<ErasurePreview> {
  checkContactId(contactId);
  await requireContact(dataSource.manager, orgId, contactId);
  const answers = await Promise.allSettled(
    ERASURE_PARTICIPANTS.map(async (service) => ({
      service,
      counts:
        service === 'contacts' ? await ownPart.preview(orgId, contactId) : await remote[service](orgId, contactId),
    })),
  );
  const silent = answers.flatMap((answer) =>
    answer.status === 'rejected' && answer.reason instanceof ParticipantUnavailable ? [answer.reason.service] : [],
  );
  if (silent.length)
    throw new Unavailable(`the erasure cannot be previewed: ${silent.join(', ')} did not answer`, {
      service: silent[0] ?? '',
    });
  return {
    contactId,
    services: answers.map((answer) => {
      if (answer.status === 'rejected') throw answer.reason;
      return answer.value;
    }),
  };
}
