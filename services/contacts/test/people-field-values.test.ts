import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { DomainError, dropTestDatabase, newId, now, openDataSource, testDbUrl } from '@svc/kit';
import { contactsData } from '../src/data';
import { PeopleFieldDefinitionRow, PeopleFieldValueRow } from '../src/entities';
import type { PeopleFieldType } from '../src/entities/people-field';
import { readAttributes, writePeopleFieldValues, type ValueWriteOptions } from '../src/domain/people-fields';

const API: ValueWriteOptions = { source: 'json', onInvalid: 'reject', fieldOf: (key) => `customAttributes.${key}` };
const FLOW: ValueWriteOptions = { ...API, source: 'text' };
const WIDGET: ValueWriteOptions = { ...API, source: 'text', onInvalid: 'skip' };

describe('people field values: the one validating write', () => {
  let dataSource: DataSource;
  const url = testDbUrl('contacts-values');
  const orgId = newId();
  const contactId = newId();
  const other = newId();

  async function define(
    key: string,
    type: PeopleFieldType,
    extra: { options?: string[]; required?: boolean; unique?: boolean } = {},
  ): Promise<void> {
    const at = now();
    await dataSource.manager.insert(PeopleFieldDefinitionRow, {
      id: newId(at),
      orgId,
      key,
      label: key,
      type,
      options: JSON.stringify(extra.options ?? []),
      required: extra.required ?? false,
      unique: extra.unique ?? false,
      createdAt: at,
      updatedAt: at,
    });
  }

  const write = (patch: Record<string, unknown>, options = API, contact = contactId) =>
    dataSource.transaction((manager) => writePeopleFieldValues(manager, orgId, contact, patch, options));
  const attributes = async (contact = contactId) =>
    (await readAttributes(dataSource.manager, orgId, [contact])).get(contact);
  async function failure(promise: Promise<unknown>): Promise<DomainError> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
    throw new Error('expected the write to fail');
  }

  before(async () => {
    dataSource = await openDataSource({ ...contactsData, url }, { migrate: true });
    await define('plan', 'SELECT', { options: ['free', 'pro'] });
    await define('tags', 'MULTI_SELECT', { options: ['a', 'b', 'c'] });
    await define('age', 'NUMBER');
    await define('vip', 'BOOLEAN');
    await define('birthday', 'DATE');
    await define('site', 'URL');
    await define('work_email', 'EMAIL', { unique: true });
    await define('mobile', 'PHONE');
    await define('nickname', 'TEXT');
    await define('account', 'TEXT', { required: true });
  });

  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  it('stores typed values in their canonical form and reads them back as the attributes map', async () => {
    const result = await write({
      plan: 'pro',
      tags: ['c', 'a'],
      age: 42,
      vip: true,
      birthday: '1990-02-28',
      site: 'https://example.com',
      work_email: 'Ann@Example.COM',
      mobile: '+1 555 010 0100',
      nickname: 'Ann',
      account: 'acme',
    });
    expect(result.set).to.have.length(10);
    expect(await attributes()).to.deep.equal({
      plan: 'pro',
      tags: ['a', 'c'],
      age: 42,
      vip: true,
      birthday: '1990-02-28',
      site: 'https://example.com/',
      work_email: 'ann@example.com',
      mobile: '+15550100100',
      nickname: 'Ann',
      account: 'acme',
    });
  });

  it('rejects an unknown key or a wrong type naming the field, and stores nothing of that write', async () => {
    const unknown = await failure(write({ nickname: 'Annie', shoe_size: 42 }));
    expect(unknown.code).to.equal('BAD_USER_INPUT');
    expect(unknown.details.field).to.equal('customAttributes.shoe_size');
    for (const [key, value] of Object.entries({
      age: '42',
      vip: 'yes',
      birthday: '1990-02-30',
      plan: 'enterprise',
      tags: ['zeta'],
      site: 'ftp://example.com',
      work_email: 'not-an-email',
      mobile: 'call me',
      nickname: 7,
    })) {
      const error = await failure(write({ [key]: value }));
      expect(error.code, key).to.equal('BAD_USER_INPUT');
      expect(error.details.field, key).to.equal(`customAttributes.${key}`);
      expect(error.message, key).not.to.include(String(value));
    }
    expect((await attributes())?.nickname).to.equal('Ann');
  });

  it('parses rendered text as the type (flows) and fails with the reason when it does not parse', async () => {
    await write({ age: ' 43 ', vip: 'FALSE', tags: 'b, a', birthday: '2024-05-01T23:30:00Z' }, FLOW);
    expect(await attributes()).to.include({ age: 43, vip: false, birthday: '2024-05-01' });
    expect((await attributes())?.tags).to.deep.equal(['a', 'b']);
    const error = await failure(write({ age: 'forty' }, { ...FLOW, fieldOf: () => 'value' }));
    expect(error.details.field).to.equal('value');
    expect(error.message).to.equal('value must be a number');
  });

  it('writes nothing for an empty patch', async () => {
    expect(await write({})).to.deep.equal({ set: [], removed: [], skipped: [] });
  });

  it('takes a number or boolean as text for a TEXT field from a text source, not from JSON', async () => {
    await write({ nickname: 7 }, FLOW, other);
    expect((await attributes(other))?.nickname).to.equal('7');
    expect((await failure(write({ nickname: 7 }, API, other))).code).to.equal('BAD_USER_INPUT');
    await write({ nickname: null }, API, other);
  });

  it('skips unknown keys and invalid values when told to (widget), storing the rest', async () => {
    const result = await write({ nickname: 'Annie', shoe_size: 1, age: 'old', work_email: 'a@b.co' }, WIDGET);
    expect(result.set).to.deep.equal(['nickname', 'work_email']);
    expect(result.skipped).to.deep.equal([
      { key: 'shoe_size', reason: 'unknown_field' },
      { key: 'age', reason: 'invalid_value' },
    ]);
    expect(await attributes()).to.include({ nickname: 'Annie', age: 43, work_email: 'a@b.co' });
  });

  it('removes a value on null, except a required one', async () => {
    expect((await write({ nickname: null })).removed).to.deep.equal(['nickname']);
    expect(await attributes()).not.to.have.property('nickname');
    const error = await failure(write({ account: null }));
    expect(error.details.field).to.equal('customAttributes.account');
    expect(error.message).to.include('required');
  });

  it('asks a new contact for every required field', async () => {
    const error = await failure(write({ nickname: 'Bo' }, { ...API, creating: true }, other));
    expect(error.details.field).to.equal('customAttributes.account');
    expect(await attributes(other)).to.deep.equal({});
  });

  it('refuses a unique field value another contact has (CONFLICT naming the field)', async () => {
    const error = await failure(write({ work_email: 'A@B.co', account: 'x' }, API, other));
    expect(error.code).to.equal('CONFLICT');
    expect(error.details.field).to.equal('customAttributes.work_email');
    // The same contact writing its own value again is no conflict.
    await write({ work_email: 'a@b.co' });
    expect(await dataSource.manager.countBy(PeopleFieldValueRow, { orgId, contactId: other })).to.equal(0);
  });

  it('lets one of two concurrent writes of one unique value win and answers the other CONFLICT', async () => {
    const [first, second] = [newId(), newId()];
    const outcomes = await Promise.allSettled([
      write({ work_email: 'race@b.co' }, API, first),
      write({ work_email: 'race@b.co' }, API, second),
    ]);
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
    expect(refused).to.have.length(1);
    expect(refused[0]).to.be.instanceOf(DomainError);
    expect((refused[0] as DomainError).code).to.equal('CONFLICT');
    expect((refused[0] as DomainError).details.field).to.equal('customAttributes.work_email');
  });
});
