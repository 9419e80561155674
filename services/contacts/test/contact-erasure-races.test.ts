import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  ApiScope,
  DomainError,
  apiKeyPrincipal,
  dropTestDatabase,
  newId,
  now,
  openDataSource,
  statementRunning,
  testDbUrl,
  testErasure,
  type OutboxRelay,
} from '@svc/kit';
import { contactsData } from '../src/data';
import { ContactRow, IdentityRow, PeopleFieldDefinitionRow, PeopleFieldValueRow } from '../src/entities';
import { ChatOwnership } from '../src/domain/chat-ownership';
import { ContactsErasurePart } from '../src/domain/erasure/own-part';
import { PeopleFieldValues } from '../src/domain/people-fields/values';

/**
 * Writes for a contact racing its erasure must not leave anything behind: a people field value written by
 * `setPeopleFieldValue` (docs/decisions/0153), a chat identity recorded from `chat.opened` (0174). Needs row locks, so
 * it runs on the MySQL family only (`npm run test:infra`); SQLite runs transactions one at a time.
 */
describe('contacts: writes racing a contact’s erasure', function () {
  const url = testDbUrl('contacts-erasure-races');
  let dataSource: DataSource;
  const orgId = newId();
  const principal = apiKeyPrincipal(orgId, [ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE]);
  const relay = { nudge: () => undefined } as unknown as OutboxRelay;

  before(async function () {
    if (!process.env.SVC_TEST_MYSQL_URL) this.skip();
    dataSource = await openDataSource({ ...contactsData, url }, { migrate: true });
  });

  after(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(url);
  });

  it('a people field value: NOT_FOUND and nothing stored when the contact is deleted mid-write', async () => {
    const at = now();
    const contactId = newId(at);
    const definitionId = newId(at);
    // Only the columns every version of the table has; the attributes column is gone once values replace it.
    await dataSource.manager.insert(ContactRow, {
      id: contactId,
      orgId,
      createdAt: at,
      updatedAt: at,
      ...({ customAttributes: '{}' } as object),
    });
    await dataSource.manager.insert(PeopleFieldDefinitionRow, {
      id: definitionId,
      orgId,
      key: 'nickname',
      label: 'Nickname',
      type: 'TEXT',
      options: '[]',
      required: false,
      unique: false,
      createdAt: at,
      updatedAt: at,
    });
    const erasure = dataSource.createQueryRunner();
    await erasure.connect();
    await erasure.startTransaction();
    await erasure.manager.delete(ContactRow, { orgId, id: contactId });
    const write = new PeopleFieldValues(dataSource, () => relay).set(principal, contactId, definitionId, '"Ann"').then(
      () => undefined,
      (error: unknown) => error,
    );
    // The write waits for the erasure's lock on the contact's row.
    await statementRunning(dataSource, 'UPDATE `contacts`%');
    await erasure.manager.delete(PeopleFieldValueRow, { orgId, contactId });
    await erasure.commitTransaction();
    await erasure.release();
    const error = await write;
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('NOT_FOUND');
    expect(await dataSource.manager.countBy(PeopleFieldValueRow, { orgId, contactId })).to.equal(0);
  });

  it('a chat identity: nothing recorded, the record waits for the erasure and then finds no contact', async () => {
    const at = now();
    const contactId = newId(at);
    await dataSource.manager.insert(ContactRow, { id: contactId, orgId, createdAt: at, updatedAt: at });
    const erasure = dataSource.createQueryRunner();
    await erasure.connect();
    await erasure.startTransaction();
    await new ContactsErasurePart(dataSource).erase(erasure.manager, testErasure(orgId, contactId));
    const recorded = new ChatOwnership(dataSource, () => relay).record(orgId, newId(), contactId, now());
    // The record waits for the erasure's lock on the contact's row.
    await statementRunning(dataSource, 'SELECT%FROM `contacts`%FOR UPDATE');
    await erasure.commitTransaction();
    await erasure.release();
    expect(await recorded).to.equal(false);
    expect(await dataSource.manager.countBy(IdentityRow, { orgId, contactId })).to.equal(0);
  });
});
