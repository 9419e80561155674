import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';

/**
 * The offset-paged lists of a schema (spec 2.2: plain `limit` / `offset`, docs/decisions/0181) and a walker proving a
 * list never skips or repeats a row: read from introspection, so a new list is covered without editing a test.
 */

/** One page of an offset list: the ids of its items and what it says about the whole list. */
export interface OffsetPage {
  ids: string[];
  totalCount: number;
  hasMore: boolean;
}

export type FetchPage = (limit: number, offset: number) => Promise<OffsetPage>;

export interface OffsetList {
  field: GraphQLField<unknown, unknown>;
  /** The page type (`{ data: [T!]!, totalCount: Int!, hasMore: Boolean! }`). */
  pageType: GraphQLObjectType;
  /** T: the type of the page's items. */
  itemType: GraphQLObjectType;
}

/** The largest page a list serves (`MAX_PAGE_LIMIT` of services/content/src/domain/page.ts). */
export const MAX_LIMIT = 100;

/** Whether a type is an offset page: an object with `data` (a list of objects with an id), `totalCount`, `hasMore`. */
export function itemTypeOfPage(type: unknown): GraphQLObjectType | undefined {
  if (!isObjectType(type)) return undefined;
  const fields = type.getFields();
  if (!fields.data || !fields.totalCount || !fields.hasMore) return undefined;
  const data = getNullableType(fields.data.type);
  if (!isListType(data)) return undefined;
  const item = getNamedType(data.ofType);
  return isObjectType(item) && item.getFields().id ? item : undefined;
}

/** Query fields taking both `limit` and `offset`, with their page and item types (undefined when not page-shaped). */
export function offsetQueries(schema: GraphQLSchema): {
  field: GraphQLField<unknown, unknown>;
  pageType: GraphQLObjectType | undefined;
  itemType: GraphQLObjectType | undefined;
}[] {
  return Object.values(schema.getQueryType()?.getFields() ?? {})
    .filter((field) => ['limit', 'offset'].every((name) => field.args.some((arg) => arg.name === name)))
    .map((field) => {
      const pageType = getNamedType(field.type);
      return {
        field,
        pageType: isObjectType(pageType) ? pageType : undefined,
        itemType: itemTypeOfPage(pageType),
      };
    });
}

/** Query fields answering an offset page, whatever their arguments (each must take `limit` and `offset`). */
export function pageShapedQueries(schema: GraphQLSchema): GraphQLField<unknown, unknown>[] {
  return Object.values(schema.getQueryType()?.getFields() ?? {}).filter((field) =>
    itemTypeOfPage(getNamedType(field.type)),
  );
}

/**
 * Walks a list page by page with `limit` from offset 0 while `hasMore`, checking each page against the list's own
 * `totalCount`; returns the ids in the order read. Throws on a page larger than the limit, a short page before the
 * end, a `hasMore` that contradicts the counts, or a `totalCount` that changes during the walk.
 */
export async function walkOffsetList(fetchPage: FetchPage, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let total: number | undefined;
  for (let offset = 0; ; offset += limit) {
    const page = await fetchPage(limit, offset);
    const where = `limit ${limit}, offset ${offset}`;
    total ??= page.totalCount;
    if (page.totalCount !== total) throw new Error(`${where}: totalCount ${page.totalCount}, was ${total}`);
    const expected = Math.max(0, Math.min(limit, total - offset));
    if (page.ids.length !== expected)
      throw new Error(`${where}: ${page.ids.length} items, expected ${expected} of ${total}`);
    if (page.hasMore !== offset + page.ids.length < total)
      throw new Error(`${where}: hasMore ${page.hasMore} with ${page.ids.length} items of ${total}`);
    ids.push(...page.ids);
    if (!page.hasMore) return ids;
  }
}

/**
 * Walks the list with each limit and compares every walk with one page of MAX_LIMIT: the same ids in the same order
 * (no skips, no repeats), and that page holds no id twice. Returns the problems found (empty: none).
 */
export async function offsetListProblems(fetchPage: FetchPage, limits: readonly number[]): Promise<string[]> {
  const whole = await fetchPage(MAX_LIMIT, 0);
  const problems: string[] = [];
  if (whole.totalCount > MAX_LIMIT) problems.push(`totalCount ${whole.totalCount} exceeds one page of ${MAX_LIMIT}`);
  if (new Set(whole.ids).size !== whole.ids.length) problems.push(`one page of ${MAX_LIMIT} repeats an id`);
  for (const limit of limits) {
    try {
      const walked = await walkOffsetList(fetchPage, limit);
      const skipped = whole.ids.filter((id) => !walked.includes(id));
      const repeated = walked.filter((id, i) => walked.indexOf(id) !== i);
      if (skipped.length) problems.push(`limit ${limit}: skipped ${skipped.join(', ')}`);
      if (repeated.length) problems.push(`limit ${limit}: repeated ${repeated.join(', ')}`);
      if (!skipped.length && !repeated.length && walked.join() !== whole.ids.join())
        problems.push(`limit ${limit}: the pages' order differs from one page of ${MAX_LIMIT}`);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return problems;
}
