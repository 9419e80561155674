import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  ERASURE_PARTICIPANTS,
  InvalidArgument,
  NotFound,
  enqueueEvents,
  eraseRequestedEvent,
  familyOf,
  isDuplicateKeyError,
  isId,
  newId,
  now,
  toIso,
  type ContactErasure,
  type ParticipantConfirmation,
  type ErasureKindCount,
  type ErasureReceiptLedger,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ErasureStatus, type ErasureReceipt } from '@svc/proto/contacts/v1/erasure';
import { ContactRow, ErasureConfirmationRow, ErasureRequestRow } from '../../entities';
import type { ContactsErasurePart } from './own-part';

/** The erasure's contact id argument, checked (BAD_USER_INPUT naming `contactId`). */
export function checkContactId(contactId: string): string {
  if (!isId(contactId)) throw new InvalidArgument('contactId must be a 24-character hex id', { field: 'contactId' });
  return contactId;
}

/** Reads a contact of the org or fails NOT_FOUND, worded the same for another org's contact and an erased one. */
export async function requireContact(manager: EntityManager, orgId: string, contactId: string): Promise<void> {
  if (!(await manager.existsBy(ContactRow, { orgId, id: contactId })))
    throw new NotFound('contact not found', { field: 'contactId' });
}

/** Who asked: the member or API key id; a service acting on its own behalf is `system` (docs/decisions/0161). */
export function requesterOf(principal: Principal): string {
  return principal.memberId || principal.keyId || 'system';
}

const isParticipant = (service: string) => (ERASURE_PARTICIPANTS as readonly string[]).includes(service);

/**
 * The erasure requests and their receipts (docs/erasure.md). `request` records the request, erases contacts' own
 * part, records contacts' confirmation and enqueues `contact.erase_requested`, all in one transaction; `confirm`
 * records each other participant's confirmation and completes the receipt once every participant confirmed.
 */
export class Erasures implements ErasureReceiptLedger {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly ownPart: ContactsErasurePart,
  ) {}

  /** The contact's receipt: the existing one when it was erased (or is being erased) already. */
  async request(orgId: string, contactId: string, requestedBy: string): Promise<ErasureReceipt> {
    checkContactId(contactId);
    const existing = await this.dataSource.manager.findOneBy(ErasureRequestRow, { orgId, contactId });
    if (existing) return this.receipt(existing);
    let request: ErasureRequestRow;
    try {
      request = await this.dataSource.transaction(async (manager) => {
        await requireContact(manager, orgId, contactId);
        const at = now();
        const row: ErasureRequestRow = {
          id: newId(at),
          orgId,
          contactId,
          requestedBy,
          requestedAt: at,
          completedAt: null,
        };
        // First: a concurrent request for the same contact waits on this row's unique index, then fails as a duplicate.
        await manager.insert(ErasureRequestRow, row);
        const erasure: ContactErasure = { erasureId: row.id, orgId, contactId };
        const { counts } = await this.ownPart.erase(manager, erasure);
        await manager.insert(ErasureConfirmationRow, {
          erasureId: row.id,
          service: this.ownPart.service,
          orgId,
          counts: JSON.stringify(counts),
          confirmedAt: at,
        });
        await enqueueEvents(manager, [eraseRequestedEvent(erasure)], at);
        return row;
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      request = await this.dataSource.manager.findOneByOrFail(ErasureRequestRow, { orgId, contactId });
    }
    this.relay().nudge();
    return this.receipt(request);
  }

  /**
   * Records a participant's confirmation; the first one of each participant is kept (a redelivered request confirms
   * zeros). Completes the receipt once every participant confirmed. Answers false for an erasure this org never
   * requested or a service that is no participant (nothing recorded).
   */
  async confirm({ orgId, erasureId, service, counts, at }: ParticipantConfirmation): Promise<boolean> {
    if (!isParticipant(service)) return false;
    return this.dataSource.transaction(async (manager) => {
      // The request row is locked: two confirmations committing at once must not each miss the other's row.
      const request = await manager.findOne(ErasureRequestRow, {
        where: { id: erasureId, orgId },
        ...(familyOf(this.dataSource) === 'mysql' ? { lock: { mode: 'pessimistic_write' as const } } : {}),
      });
      if (!request) return false;
      await manager
        .createQueryBuilder()
        .insert()
        .into(ErasureConfirmationRow)
        .values({ erasureId, service, orgId, counts: JSON.stringify(counts), confirmedAt: at })
        .orIgnore()
        .execute();
      if (request.completedAt) return true;
      const confirmed = await manager.countBy(ErasureConfirmationRow, {
        erasureId,
        service: In([...ERASURE_PARTICIPANTS]),
      });
      if (confirmed === ERASURE_PARTICIPANTS.length)
        await manager.update(ErasureRequestRow, { id: erasureId }, { completedAt: at });
      return true;
    });
  }

  /** The receipt of one request: every participant in the list's order, each confirmed or not yet. */
  async receipt(request: ErasureRequestRow): Promise<ErasureReceipt> {
    const manager = this.dataSource.manager;
    const [current, confirmations] = await Promise.all([
      manager.findOneByOrFail(ErasureRequestRow, { id: request.id }),
      manager.findBy(ErasureConfirmationRow, { erasureId: request.id }),
    ]);
    const byService = new Map(confirmations.map((c) => [c.service, c]));
    return {
      id: current.id,
      contactId: current.contactId,
      requestedBy: current.requestedBy,
      requestedAt: toIso(current.requestedAt),
      status: current.completedAt ? ErasureStatus.COMPLETED : ErasureStatus.IN_PROGRESS,
      completedAt: current.completedAt ? toIso(current.completedAt) : undefined,
      services: ERASURE_PARTICIPANTS.map((service) => {
        const confirmation = byService.get(service);
        return {
          service,
          confirmed: Boolean(confirmation),
          confirmedAt: confirmation ? toIso(confirmation.confirmedAt) : undefined,
          counts: confirmation ? (JSON.parse(confirmation.counts) as ErasureKindCount[]) : [],
        };
      }),
    };
  }
}
