import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  ORG_ERASURE_PARTICIPANTS,
  enqueueEvents,
  familyOf,
  now,
  offsetPageOf,
  orgEraseRequestedEvent,
  type ParticipantConfirmation,
  type ErasureReceiptLedger,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { OrgKind } from '@svc/proto/common/v1';
import {
  ClientOrgStatus,
  type ClientOrg,
  type ClientOrgPage,
  type CreateClientOrgRequest,
  type CreatedClientOrg,
  type ListClientOrgsRequest,
} from '@svc/proto/identity/v1/client_orgs';
import { OrgErasureConfirmationRow, OrgRow } from '../../entities';
import { createOrg } from '../orgs';
import type { Passwords } from '../passwords';
import { requireClientOrg, requireProvider } from './access';
import { eraseIdentityPart } from './own-part';
import { clientOrgView } from './views';

const isParticipant = (service: string) => (ORG_ERASURE_PARTICIPANTS as readonly string[]).includes(service);

/**
 * A TECH_PROVIDER's client orgs (docs/decisions/0211-client-org-contract.md) and their deprovisioning, the org erasure
 * saga's head (docs/decisions/0212-client-org-deprovisioning.md). The erasure id of a deprovisioning is the org id:
 * an org is deprovisioned at most once.
 */
export class ClientOrgs implements ErasureReceiptLedger {
  constructor(
    private readonly dataSource: DataSource,
    private readonly passwords: Passwords,
    private readonly relay: () => OutboxRelay,
  ) {}

  async create(principal: Principal, request: CreateClientOrgRequest): Promise<CreatedClientOrg> {
    const providerOrgId = requireProvider(principal);
    const created = await createOrg(this.dataSource, this.passwords, {
      name: request.name,
      kind: OrgKind.STANDARD,
      parentOrgId: providerOrgId,
      ...(request.owner ? { owner: { email: request.owner.email, name: request.owner.name ?? '' } } : {}),
    });
    const owner = created.owner;
    return {
      org: clientOrgView(created.org, []),
      owner: owner
        ? { id: owner.id, email: owner.email, name: owner.name, oneTimePassword: created.oneTimePassword ?? '' }
        : undefined,
    };
  }

  async list(principal: Principal, request: ListClientOrgsRequest): Promise<ClientOrgPage> {
    const providerOrgId = requireProvider(principal);
    const { limit, offset } = offsetPageOf(request);
    const status =
      request.status && request.status !== ClientOrgStatus.CLIENT_ORG_STATUS_UNSPECIFIED ? request.status : undefined;
    const [rows, totalCount] = await this.dataSource.getRepository(OrgRow).findAndCount({
      where: { parentOrgId: providerOrgId, ...(status ? { status } : {}) },
      // The id last: rows created in the same millisecond keep one order, so pages never skip or repeat one.
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: offset,
      take: limit,
    });
    const confirmations = await this.confirmationsOf(
      this.dataSource.manager,
      rows.filter((row) => row.status !== ClientOrgStatus.ACTIVE).map((row) => row.id),
    );
    return {
      data: rows.map((row) => clientOrgView(row, confirmations.get(row.id) ?? [])),
      totalCount,
      hasMore: offset + rows.length < totalCount,
    };
  }

  /**
   * Starts deprovisioning in ONE transaction: the org DEPROVISIONING, identity's part erased and confirmed,
   * `org.erase_requested` in the outbox. Idempotent: an org already deprovisioning (or done) is answered as it is.
   */
  async deprovision(principal: Principal, id: string): Promise<ClientOrg> {
    const providerOrgId = requireProvider(principal);
    const org = await this.dataSource.transaction(async (manager) => {
      const row = await requireClientOrg(manager, providerOrgId, id, this.locks);
      if (row.status !== ClientOrgStatus.ACTIVE) return row;
      const at = now();
      const erased = await eraseIdentityPart(manager, row.id);
      row.status = ClientOrgStatus.DEPROVISIONING;
      row.deprovisionRequestedAt = at;
      await manager.update(
        OrgRow,
        { id: row.id },
        { status: row.status, deprovisionRequestedAt: row.deprovisionRequestedAt },
      );
      await manager.insert(OrgErasureConfirmationRow, {
        orgId: row.id,
        service: 'identity',
        counts: erased.counts,
        confirmedAt: at,
      });
      await enqueueEvents(
        manager,
        [orgEraseRequestedEvent({ erasureId: row.id, orgId: row.id }), ...erased.events],
        at,
      );
      return row;
    });
    this.relay().nudge();
    const confirmations = await this.confirmationsOf(this.dataSource.manager, [org.id]);
    return clientOrgView(org, confirmations.get(org.id) ?? []);
  }

  /**
   * Records a participant's `org.erase_confirmed`; the first one of each participant is kept. Marks the org
   * DEPROVISIONED once every participant confirmed. Answers false for an org with no deprovisioning of this id or a
   * service that is no participant (nothing recorded).
   */
  async confirm({ orgId, erasureId, service, counts, at }: ParticipantConfirmation): Promise<boolean> {
    if (!isParticipant(service) || erasureId !== orgId) return false;
    return this.dataSource.transaction(async (manager) => {
      // The org row is locked: two confirmations committing at once must not each miss the other's row.
      const org = await manager.findOne(OrgRow, {
        where: { id: orgId },
        ...(this.locks ? { lock: { mode: 'pessimistic_write' as const } } : {}),
      });
      if (!org || org.status === ClientOrgStatus.ACTIVE) return false;
      await manager
        .createQueryBuilder()
        .insert()
        .into(OrgErasureConfirmationRow)
        .values({ orgId, service, counts: counts.map(({ kind, count }) => ({ kind, count })), confirmedAt: at })
        .orIgnore()
        .execute();
      if (org.status === ClientOrgStatus.DEPROVISIONED) return true;
      const confirmed = await manager.countBy(OrgErasureConfirmationRow, {
        orgId,
        service: In([...ORG_ERASURE_PARTICIPANTS]),
      });
      if (confirmed === ORG_ERASURE_PARTICIPANTS.length)
        await manager.update(OrgRow, { id: orgId }, { status: ClientOrgStatus.DEPROVISIONED, deprovisionedAt: at });
      return true;
    });
  }

  private get locks(): boolean {
    return familyOf(this.dataSource) === 'mysql';
  }

  private async confirmationsOf(
    manager: EntityManager,
    orgIds: string[],
  ): Promise<Map<string, OrgErasureConfirmationRow[]>> {
    const byOrg = new Map<string, OrgErasureConfirmationRow[]>();
    if (!orgIds.length) return byOrg;
    for (const row of await manager.findBy(OrgErasureConfirmationRow, { orgId: In(orgIds) }))
      byOrg.set(row.orgId, [...(byOrg.get(row.orgId) ?? []), row]);
    return byOrg;
  }
}
