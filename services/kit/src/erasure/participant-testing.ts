import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErasureParticipantServiceClient } from '@svc/proto/erasure/v1';
import { grpcClient, unary } from '../grpc/client';
import { systemPrincipal } from '../principal';
import type { ServiceApp } from '../service-app';
import { testSigner } from '../testing';
import type { ContactErasure, ErasureKindCount } from './contract';
import { ErasureConfirmations, publishEraseRequest } from './testing';

/** What a started participant answered contacts' preview, and what it then confirmed erasing. */
export interface ParticipantRoundTrip {
  preview: ErasureKindCount[];
  confirmed: ErasureKindCount[];
}

/**
 * Drives a started participant app as contacts does (tests): `PreviewErasure` over its gRPC port as SYSTEM of the
 * org, then `contact.erase_requested` on its bus, waiting for its `contact.erase_confirmed`.
 */
export async function participantRoundTrip(app: ServiceApp, erasure: ContactErasure): Promise<ParticipantRoundTrip> {
  const service = app.spec.name;
  const client = grpcClient(ErasureParticipantServiceClient, `127.0.0.1:${app.grpcPort}`);
  const confirmations = await new ErasureConfirmations().start(app.bus, app.config.KAFKA_TOPIC_PREFIX);
  try {
    const metadata = testSigner('contacts').metadata(systemPrincipal(erasure.orgId), service);
    const answer = await unary(client.previewErasure.bind(client), { contactId: erasure.contactId }, metadata);
    await publishEraseRequest(app.bus, app.config.KAFKA_TOPIC_PREFIX, erasure);
    const confirmation = await confirmations.waitFor(erasure.erasureId, service);
    return { preview: answer.counts, confirmed: confirmation.counts };
  } finally {
    client.close();
    await confirmations.stop();
  }
}

/** The rows of a table of docs/erasure.md (the one under `heading`), in order: service → its kinds as written. */
function documentedErasureTable(heading = '## What each service erases'): Map<string, string[]> {
  // From services/kit/dist/src/erasure (compiled) to the repository's docs.
  const text = fs.readFileSync(path.resolve(__dirname, '../../../../../docs/erasure.md'), 'utf8');
  const section = text.split(`${heading}\n`)[1]?.split(/\n##/)[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| service'));
  return new Map(
    rows.map((row) => {
      const [service = '', kinds = ''] = row
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      return [service, [...kinds.matchAll(/`([a-z_]+)`/g)].map((match) => match[1] ?? '')];
    }),
  );
}

/** The services docs/erasure.md's table lists, in its order (checked against ERASURE_PARTICIPANTS). */
export function documentedErasureServices(): string[] {
  return [...documentedErasureTable().keys()];
}

/**
 * The kinds docs/erasure.md's table ("What each service erases") lists for `service`, in order: a participant's test
 * checks them against what its part counts, so the table cannot drift from the code.
 */
export function documentedErasureKinds(service: string): string[] {
  const kinds = documentedErasureTable().get(service);
  if (!kinds) throw new Error(`docs/erasure.md has no row for ${service}`);
  return kinds;
}

/**
 * The kinds docs/erasure.md's org table ("What each service deletes of an org") lists as deleted by `service`, in
 * order (the table's second column): a participant's test checks them against what its org part counts.
 */
export function documentedOrgErasureKinds(service: string): string[] {
  const kinds = documentedErasureTable('### What each service deletes of an org').get(service);
  if (!kinds) throw new Error(`docs/erasure.md's org table has no row for ${service}`);
  return kinds;
}

/** The services docs/erasure.md's org table lists, in its order (checked against ORG_ERASURE_PARTICIPANTS). */
export function documentedOrgErasureServices(): string[] {
  return [...documentedErasureTable('### What each service deletes of an org').keys()];
}
