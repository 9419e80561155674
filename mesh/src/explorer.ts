/**
 * GraphiQL, as Hive Gateway serves it at the GraphQL endpoint to a browser (GET with Accept: text/html). The page is
 * static: it holds no data, and every operation it sends needs the credential the user types into the headers editor,
 * which is not kept in the browser's storage.
 */
export const EXPLORER_OPTIONS = {
  title: 'svc-inbox GraphQL explorer',
  headers: JSON.stringify({ Authorization: 'Bearer <API key or session token>' }, null, 2),
  shouldPersistHeaders: false,
  defaultQuery: [
    '# Every operation needs a credential: replace the placeholder in the Authorization header (Headers tab below)',
    '# with an API key or a session token (the demo credentials are in .data/demo.env), then reload the schema.',
    '{',
    '  __typename',
    '}',
    '',
  ].join('\n'),
};
