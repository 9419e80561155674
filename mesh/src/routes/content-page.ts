/** The list shape every content area shares: `limit` / `offset` in, `{ data, totalCount, hasMore }` out (0181). */
type Json = Record<string, unknown>;

/** Unset arguments stay unset (the proto's optional fields); null means unset too. */
export const given = (args: Json): Json =>
  Object.fromEntries(Object.entries(args).filter(([, value]) => value != null));

/** A list's arguments as its request: `limit` / `offset` in the proto's `page`, the filters beside it. */
export function contentPageRequest({ limit, offset, ...filters }: Json): Json {
  return { page: given({ limit, offset }), ...given(filters) };
}

/** A page of the content service (`data`, `pageInfo`) as the public page type, each item shaped by `item`. */
export function contentPage(result: Json, item: (row: Json) => unknown = (row) => row): Json {
  const info = (result.pageInfo as Json | undefined) ?? {};
  return {
    data: ((result.data as Json[] | undefined) ?? []).map(item),
    totalCount: info.totalCount ?? 0,
    hasMore: info.hasMore ?? false,
  };
}
