import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
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
import { ContactRow, IdentityRow } from '../src/entities';
import { ChatOwnership } from '../src/domain/chat-ownership';
import { ContactsErasurePart } from '../src/domain/erasure/own-part';

/**
 * `chat.opened` recorded while the contact's erasure is deleting it must not leave a chat identity on the erased
 * contact (docs/decisions/0174). Row locks: the MySQL family only (`npm run test:infra`); SQLite runs transactions one
 * at a time, and the plain case (the contact already gone) is in contacts.test.ts.
 */
describe('ChatOwnership: a chat recorded while the contact is being erased', function () {
  const url = testDbUrl('contacts-chat-ownership-race');
  let dataSource: DataSource;
  const orgId = newId();
  const relay = { nudge: () => undefined } as unknown as OutboxRelay;

  before(async function () {
    if (!process.env.SVC_TEST_MYSQL_URL) this.skip();
    dataSource = await openDataSource({ ...contactsData, url }, { migrate: true });
  });

  after(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(url);
  });

  it('records nothing: it waits for the erasure, then finds no contact', async () => {
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
