import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  Conflict,
  InvalidArgument,
  NotFound,
  enqueueEvents,
  isId,
  newId,
  now,
  requireOrg,
  requireScope,
  type Logger,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { IdentifierType, type ContactInput } from '@svc/proto/contacts/v1';
import { ContactRow, IdentityRow } from '../entities';
import { applyChatAppAIdEdits, hasChatAppAChat, type IdentityOwners } from './chat-app-a-id';
import { contactEvent } from './events';
import { addIdentity, identityKey, replaceFieldIdentity, type IdentityKey } from './identities';
import { attributeWriteOf, writeContactAttributes, type AttributeWrite } from './contact-attributes';
import { normalizeEmail, normalizePhone, optionalText, parseAttributes } from './normalize';
import { readAttributes, type AttributeMap } from './people-fields';

export interface ContactWithIdentities {
  row: ContactRow;
  identities: IdentityRow[];
  /** Its people field values by key: the contact's `customAttributes`. */
  attributes: AttributeMap;
}

/** Reads a contact of the org or fails with NOT_FOUND (also for another org's contact: no existence oracle). */
export async function findContact(
  manager: EntityManager,
  orgId: string,
  id: string,
  field = 'id',
): Promise<ContactRow> {
  if (!isId(id)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
  const row = await manager.findOneBy(ContactRow, { id, orgId });
  if (!row) throw new NotFound('contact not found', { field });
  return row;
}

/** The contacts (of one org) with their identities and attributes, in a fixed number of queries. */
export async function withIdentities(manager: EntityManager, rows: ContactRow[]): Promise<ContactWithIdentities[]> {
  if (!rows.length) return [];
  const orgId = rows[0]?.orgId ?? '';
  const ids = rows.map((r) => r.id);
  const identities = await manager.find(IdentityRow, {
    where: { orgId, contactId: In(ids) },
    order: { createdAt: 'ASC', id: 'ASC' },
  });
  const attributes = await readAttributes(manager, orgId, ids);
  return rows.map((row) => ({
    row,
    identities: identities.filter((i) => i.contactId === row.id),
    attributes: attributes.get(row.id) ?? {},
  }));
}

async function withIdentitiesOf(manager: EntityManager, row: ContactRow): Promise<ContactWithIdentities> {
  const [found] = await withIdentities(manager, [row]);
  return found ?? { row, identities: [], attributes: {} };
}

/** The fields of an input, validated and normalised; undefined means "not given", null means "clear". */
function fieldsOf(input: ContactInput) {
  const email = optionalText(input.email, 'email', 254);
  const phone = optionalText(input.phone, 'phone', 32);
  return {
    name: optionalText(input.name, 'name', 200),
    email: email ? normalizeEmail(email) : email,
    phone: phone ? normalizePhone(phone) : phone,
    externalId: optionalText(input.externalId, 'externalId', 200),
    attributes: input.customAttributesJson ? parseAttributes(input.customAttributesJson) : undefined,
    identities: input.identities.map((identity) => identityKey(identity)),
  };
}

/** Which id of an identity names an object of another service, the kind of object, and who says it is the org's. */
const REFERENCES = [
  { type: IdentifierType.CHAT_ID, idOf: (key: IdentityKey) => key.value, noun: 'chat', owner: 'chatsOfOrg' },
  {
    type: IdentifierType.CHANNEL_USER_ID,
    idOf: (key: IdentityKey) => key.scope,
    noun: 'channel',
    owner: 'channelsOfOrg',
  },
] as const;

export class Contacts {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly owners: IdentityOwners,
    private readonly logger: Logger,
  ) {}

  /**
   * The fields of an input whose every Chat ID identity names a chat of the org and every Channel user ID identity a
   * channel of it: NOT_FOUND naming the first that does not, worded the same for another org's object and an unknown
   * one (docs/decisions/0042). Each owner is asked once, in parallel, before the transaction, and only when needed.
   */
  private async ownFields(orgId: string, input: ContactInput): Promise<ReturnType<typeof fieldsOf>> {
    const fields = fieldsOf(input);
    const found = await Promise.all(
      REFERENCES.map(async ({ type, idOf, owner }) => {
        const ids = fields.identities.flatMap((key) => (key.type === type ? [idOf(key)] : []));
        return new Set(ids.length ? await this.owners[owner](orgId, [...new Set(ids)]) : []);
      }),
    );
    for (const [index, key] of fields.identities.entries()) {
      const at = REFERENCES.findIndex(({ type }) => type === key.type);
      const reference = REFERENCES[at];
      if (reference && !found[at]?.has(reference.idOf(key)))
        throw new NotFound(`identities[${index}] names no ${reference.noun} of this org`, {
          field: `identities[${index}]`,
        });
    }
    return fields;
  }

  async create(principal: Principal, input: ContactInput): Promise<ContactWithIdentities> {
    requireScope(principal, ApiScope.CONTACTS_MANAGE);
    const orgId = requireOrg(principal);
    const write = attributeWriteOf(principal, input.customAttributesSource);
    const fields = await this.ownFields(orgId, input);
    const result = await this.dataSource.transaction((manager) => this.insert(manager, orgId, fields, write));
    this.relay().nudge();
    return result;
  }

  async update(principal: Principal, id: string, input: ContactInput): Promise<ContactWithIdentities> {
    requireScope(principal, ApiScope.CONTACTS_MANAGE);
    const orgId = requireOrg(principal);
    const write = attributeWriteOf(principal, input.customAttributesSource);
    const fields = await this.ownFields(orgId, input);
    const result = await this.dataSource.transaction(async (manager) =>
      this.apply(manager, await findContact(manager, orgId, id), fields, write),
    );
    this.relay().nudge();
    return result;
  }

  /** Matches by external id, else email, else phone (the most specific identifier given wins). */
  async upsert(principal: Principal, input: ContactInput): Promise<ContactWithIdentities> {
    requireScope(principal, ApiScope.CONTACTS_MANAGE);
    const orgId = requireOrg(principal);
    const write = attributeWriteOf(principal, input.customAttributesSource);
    const fields = await this.ownFields(orgId, input);
    if (!fields.externalId && !fields.email && !fields.phone)
      throw new InvalidArgument('upsert needs an externalId, email or phone to match on', { field: 'input' });
    const result = await this.dataSource.transaction(async (manager) => {
      const match = await this.match(manager, orgId, fields);
      return match ? this.apply(manager, match, fields, write) : this.insert(manager, orgId, fields, write);
    });
    this.relay().nudge();
    return result;
  }

  async get(principal: Principal, id: string): Promise<ContactWithIdentities> {
    requireScope(principal, ApiScope.CONTACTS_READ);
    const manager = this.dataSource.manager;
    return withIdentitiesOf(manager, await findContact(manager, requireOrg(principal), id));
  }

  async getByExternalId(principal: Principal, externalId: string): Promise<ContactWithIdentities> {
    requireScope(principal, ApiScope.CONTACTS_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const row = externalId.trim()
      ? await manager.findOneBy(ContactRow, { orgId, externalId: externalId.trim() })
      : null;
    if (!row) throw new NotFound('contact not found', { field: 'externalId' });
    return withIdentitiesOf(manager, row);
  }

  /** Whether the contact's ChatAppA id may still change: not once it has a ChatAppA chat (decision 0155). */
  async isChatAppAIdEditable(principal: Principal, contactId: string): Promise<boolean> {
    requireScope(principal, ApiScope.CONTACTS_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const contact = await findContact(manager, orgId, contactId, 'contactId');
    return !(await hasChatAppAChat(manager, this.owners, orgId, contact.id));
  }

  private async match(
    manager: EntityManager,
    orgId: string,
    fields: ReturnType<typeof fieldsOf>,
  ): Promise<ContactRow | null> {
    if (fields.externalId) return manager.findOneBy(ContactRow, { orgId, externalId: fields.externalId });
    const key = fields.email
      ? { type: IdentifierType.EMAIL, value: fields.email }
      : fields.phone
        ? { type: IdentifierType.PHONE_NUMBER, value: fields.phone }
        : undefined;
    if (!key) return null;
    const identity = await manager.findOneBy(IdentityRow, { orgId, scope: '', ...key });
    return identity ? manager.findOneBy(ContactRow, { orgId, id: identity.contactId }) : null;
  }

  private async insert(
    manager: EntityManager,
    orgId: string,
    fields: ReturnType<typeof fieldsOf>,
    write: AttributeWrite,
  ): Promise<ContactWithIdentities> {
    const at = now();
    if (fields.externalId && (await manager.findOneBy(ContactRow, { orgId, externalId: fields.externalId })))
      throw new Conflict('another contact already has this externalId', { field: 'externalId' });
    const row = manager.create(ContactRow, {
      id: newId(at),
      orgId,
      name: fields.name ?? null,
      email: fields.email ?? null,
      phone: fields.phone ?? null,
      externalId: fields.externalId ?? null,
      createdAt: at,
      updatedAt: at,
    });
    await manager.insert(ContactRow, row);
    await this.addIdentities(manager, row, null, null, fields, at);
    await writeContactAttributes(manager, row, fields.attributes, write, true, this.logger);
    await enqueueEvents(manager, [contactEvent('contact.created', row)], at);
    return withIdentitiesOf(manager, row);
  }

  private async apply(
    manager: EntityManager,
    row: ContactRow,
    fields: ReturnType<typeof fieldsOf>,
    write: AttributeWrite,
  ): Promise<ContactWithIdentities> {
    const at = now();
    const previous = { email: row.email, phone: row.phone };
    if (fields.externalId !== undefined && fields.externalId !== row.externalId && fields.externalId !== null) {
      const taken = await manager.findOneBy(ContactRow, { orgId: row.orgId, externalId: fields.externalId });
      if (taken) throw new Conflict('another contact already has this externalId', { field: 'externalId' });
    }
    if (fields.name !== undefined) row.name = fields.name;
    if (fields.email !== undefined) row.email = fields.email;
    if (fields.phone !== undefined) row.phone = fields.phone;
    if (fields.externalId !== undefined) row.externalId = fields.externalId;
    row.updatedAt = at;
    const updated = await manager.update(
      ContactRow,
      { id: row.id, orgId: row.orgId },
      {
        name: row.name,
        email: row.email,
        phone: row.phone,
        externalId: row.externalId,
        updatedAt: at,
      },
    );
    // The update locks the row: an erasure that committed since the contact was read leaves nothing to update, and
    // nothing (identities, attribute values) may then be written for the erased contact.
    if (updated.affected === 0) throw new NotFound('contact not found', { field: 'id' });
    await applyChatAppAIdEdits(manager, this.owners, row.orgId, row.id, fields.identities);
    await this.addIdentities(manager, row, previous.email, previous.phone, fields, at);
    await writeContactAttributes(manager, row, fields.attributes, write, false, this.logger);
    await enqueueEvents(manager, [contactEvent('contact.updated', row)], at);
    return withIdentitiesOf(manager, row);
  }

  private async addIdentities(
    manager: EntityManager,
    row: ContactRow,
    previousEmail: string | null,
    previousPhone: string | null,
    fields: ReturnType<typeof fieldsOf>,
    at: Date,
  ): Promise<void> {
    await replaceFieldIdentity(manager, row.orgId, row.id, IdentifierType.EMAIL, previousEmail, row.email, at);
    await replaceFieldIdentity(manager, row.orgId, row.id, IdentifierType.PHONE_NUMBER, previousPhone, row.phone, at);
    for (const key of fields.identities) await addIdentity(manager, row.orgId, row.id, key, at);
  }
}
