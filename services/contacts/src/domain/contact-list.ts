import type { DataSource } from 'typeorm';
import { InvalidArgument, isId, pageLimit, requireOrg, requireScope, type Page, type Principal } from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type { ContactApiPaginationInput } from '@svc/proto/contacts/v1';
import { ContactRow } from '../entities';
import { withIdentities, type ContactWithIdentities } from './contacts';

export const DEFAULT_FIRST = 20;

/**
 * `contactsApi(pagination: { first = 20, after: ID })`: oldest first, keyset on the id. Ids start with their
 * creation second, so this is creation order; `after` is the id of the last contact of the previous page (the
 * `nextCursor` of that page), which keeps paging skip-free while contacts are added.
 */
export async function listContacts(
  dataSource: DataSource,
  principal: Principal,
  pagination: ContactApiPaginationInput | undefined,
): Promise<Page<ContactWithIdentities>> {
  requireScope(principal, ApiScope.CONTACTS_READ);
  const orgId = requireOrg(principal);
  const first = pageLimit(pagination?.first, DEFAULT_FIRST, 'pagination.first');
  const after = pagination?.after || undefined;
  if (after !== undefined && !isId(after))
    throw new InvalidArgument('after must be the id of a contact', { field: 'pagination.after' });
  const query = dataSource.getRepository(ContactRow).createQueryBuilder('c').where('c.orgId = :orgId', { orgId });
  const page = query.clone();
  if (after) page.andWhere('c.id > :after', { after });
  const rows = await page
    .orderBy('c.id', 'ASC')
    .take(first + 1)
    .getMany();
  const data = rows.slice(0, first);
  const hasPrevious =
    after !== undefined &&
    (await query.clone().andWhere('c.id <= :after', { after }).select('c.id').limit(1).getRawOne()) !== undefined;
  return {
    data: await withIdentities(dataSource.manager, data),
    nextCursor: data[data.length - 1]?.id ?? after,
    previousCursor: data[0]?.id ?? after,
    hasNext: rows.length > first,
    hasPrevious,
  };
}
