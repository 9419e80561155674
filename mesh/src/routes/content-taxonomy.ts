import { contentPage, contentPageRequest } from './content-page';
import type { Route } from './route';

type Json = Record<string, unknown>;

/** A term with its count under the name its type uses (`articleCount` of a help tag, `postCount` of news terms). */
const termOutput =
  (countField: string) =>
  ({ itemCount, ...term }: Json): Json => ({ ...term, [countField]: itemCount ?? 0 });

const lowerFirst = (name: string) => `${name.charAt(0).toLowerCase()}${name.slice(1)}`;

/**
 * The five operations of one kind, named after it (`helpTags`, `helpTag`, `createHelpTag`, …) like its RPCs
 * (`ListHelpTags`, `GetHelpTag`, `CreateHelpTag`, …).
 */
function termRoutes(singular: string, plural: string, countField: string): Record<string, Route> {
  const service = 'contentTaxonomy';
  const output = termOutput(countField);
  return {
    [lowerFirst(plural)]: {
      service,
      method: `List${plural}`,
      request: ({ limit, offset, query }) => contentPageRequest({ limit, offset, query }),
      response: (page) => contentPage(page, output),
    },
    [lowerFirst(singular)]: { service, method: `Get${singular}`, response: output },
    [`create${singular}`]: {
      service,
      method: `Create${singular}`,
      request: (a) => ({ name: (a.input as Json).name }),
      response: output,
    },
    [`update${singular}`]: {
      service,
      method: `Update${singular}`,
      request: (a) => ({ id: a.id, name: (a.input as Json).name }),
      response: output,
    },
    [`delete${singular}`]: { service, method: `Delete${singular}` },
  };
}

export const contentTaxonomyRoutes: Record<string, Route> = {
  ...termRoutes('HelpTag', 'HelpTags', 'articleCount'),
  ...termRoutes('NewsCategory', 'NewsCategories', 'postCount'),
  ...termRoutes('NewsTag', 'NewsTags', 'postCount'),
};
