import type { DataSource, EntityManager } from 'typeorm';
import {
  InvalidArgument,
  NotFound,
  enqueueEvents,
  isId,
  now,
  requireOrg,
  requireScope,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { ContactRow, PeopleFieldDefinitionRow, PeopleFieldValueRow } from '../../entities';
import { contactEvent } from '../events';
import { MAX_DEFINITIONS_PER_ORG } from './definition-rules';
import { findDefinition } from './definitions';
import { writePeopleFieldValues } from './write';

export interface StoredValue {
  row: PeopleFieldValueRow;
  definition: PeopleFieldDefinitionRow;
}

/** A contact of the org, or NOT_FOUND naming `contactId` (also another org's contact, and an erased one). */
async function findContactOf(manager: EntityManager, orgId: string, contactId: string): Promise<ContactRow> {
  if (!isId(contactId)) throw new InvalidArgument('contactId must be a 24-character hex id', { field: 'contactId' });
  const row = await manager.findOneBy(ContactRow, { id: contactId, orgId });
  if (!row) throw new NotFound('contactId names no contact of this org', { field: 'contactId' });
  return row;
}

function parseValue(valueJson: string): unknown {
  try {
    return JSON.parse(valueJson);
  } catch {
    throw new InvalidArgument('value must be JSON', { field: 'value' });
  }
}

/**
 * A value change is a change of the contact: its `updatedAt` moves and `contact.updated` goes out (ids only). Done
 * first in the transaction: the update locks the contact's row on the MySQL family, so an erasure deleting the contact
 * concurrently either waits for this write (and then erases its value too) or has already deleted the row (nothing is
 * updated, and the write answers NOT_FOUND instead of leaving a value behind).
 */
async function touch(manager: EntityManager, contact: ContactRow): Promise<void> {
  const at = now();
  contact.updatedAt = at;
  const updated = await manager.update(ContactRow, { id: contact.id, orgId: contact.orgId }, { updatedAt: at });
  if (updated.affected === 0) throw new NotFound('contactId names no contact of this org', { field: 'contactId' });
  await enqueueEvents(manager, [contactEvent('contact.updated', contact)], at);
}

/** One contact's people field values, read and written one field at a time (the public value operations). */
export class PeopleFieldValues {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  async get(principal: Principal, contactId: string, definitionId: string): Promise<StoredValue | undefined> {
    requireScope(principal, ApiScope.CONTACTS_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    await findContactOf(manager, orgId, contactId);
    const definition = await findDefinition(manager, orgId, definitionId, 'definitionId');
    const row = await manager.findOneBy(PeopleFieldValueRow, { orgId, contactId, definitionId });
    return row ? { row, definition } : undefined;
  }

  async list(principal: Principal, contactId: string): Promise<StoredValue[]> {
    requireScope(principal, ApiScope.CONTACTS_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    await findContactOf(manager, orgId, contactId);
    const rows = new Map(
      (await manager.findBy(PeopleFieldValueRow, { orgId, contactId })).map((row) => [row.definitionId, row]),
    );
    if (!rows.size) return [];
    const definitions = await manager.find(PeopleFieldDefinitionRow, {
      where: { orgId },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: MAX_DEFINITIONS_PER_ORG,
    });
    return definitions.flatMap((definition) => {
      const row = rows.get(definition.id);
      return row ? [{ row, definition }] : [];
    });
  }

  /** Validated by the one write (`value` is named by any error); null is refused: deleting is its own operation. */
  async set(principal: Principal, contactId: string, definitionId: string, valueJson: string): Promise<StoredValue> {
    requireScope(principal, ApiScope.CONTACTS_MANAGE);
    const orgId = requireOrg(principal);
    const value = parseValue(valueJson);
    if (value === null)
      throw new InvalidArgument('value must not be null (deletePeopleFieldValue removes a value)', { field: 'value' });
    const stored = await this.dataSource.transaction(async (manager) => {
      const contact = await findContactOf(manager, orgId, contactId);
      const definition = await findDefinition(manager, orgId, definitionId, 'definitionId');
      await touch(manager, contact);
      await writePeopleFieldValues(
        manager,
        orgId,
        contactId,
        { [definition.key]: value },
        { source: 'json', onInvalid: 'reject', fieldOf: () => 'value' },
      );
      const row = await manager.findOneByOrFail(PeopleFieldValueRow, { orgId, contactId, definitionId });
      return { row, definition };
    });
    this.relay().nudge();
    return stored;
  }

  /** Answers whether there was a value; a required field's value cannot be removed (BAD_USER_INPUT). */
  async delete(principal: Principal, contactId: string, definitionId: string): Promise<boolean> {
    requireScope(principal, ApiScope.CONTACTS_MANAGE);
    const orgId = requireOrg(principal);
    const deleted = await this.dataSource.transaction(async (manager) => {
      const contact = await findContactOf(manager, orgId, contactId);
      const definition = await findDefinition(manager, orgId, definitionId, 'definitionId');
      if (!(await manager.existsBy(PeopleFieldValueRow, { orgId, contactId, definitionId }))) return false;
      await touch(manager, contact);
      await writePeopleFieldValues(
        manager,
        orgId,
        contactId,
        { [definition.key]: null },
        {
          source: 'json',
          onInvalid: 'reject',
          fieldOf: () => 'definitionId',
        },
      );
      return true;
    });
    if (deleted) this.relay().nudge();
    return deleted;
  }
}
