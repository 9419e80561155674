import { expect } from 'chai';
import { createSchema, createYoga } from 'graphql-yoga';
import { allowMultipartUploads } from '../src/plugins/multipart-body-limit';

type ParseHook = (payload: {
  request: Request;
  requestParser?: unknown;
  setRequestParser(parser: unknown): void;
}) => unknown;

/** The hook `allowMultipartUploads` puts in place of Yoga's, run on a request: did it replace the request parser? */
function bodySizeHookOf(maxBytes: number) {
  const yoga = createYoga({ schema: createSchema({ typeDefs: 'type Query { ok: Boolean }' }), logging: false });
  const hooks = (yoga as unknown as { onRequestParseHooks: ParseHook[] }).onRequestParseHooks;
  const before = [...hooks];
  allowMultipartUploads(yoga, maxBytes);
  const replacing = hooks.filter((hook, index) => hook !== before[index]);
  expect(replacing).to.have.length(1);
  const [hook] = replacing;
  const run = (request: Request) => {
    let replaced = false;
    hook?.({ request, requestParser: () => undefined, setRequestParser: () => (replaced = true) });
    return { replaced };
  };
  return { run };
}

const post = (contentType: string, body: string) =>
  new Request('http://gateway/graphql', {
    method: 'POST',
    headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) },
    body,
  });

describe('gateway: Yoga body-size hook replaced (multipart-body-limit.ts)', () => {
  it('does not stream a JSON body through the byte counter of Yoga (request-limits.ts bounds it)', () => {
    const { run } = bodySizeHookOf(1024);
    expect(run(post('application/json', '{"query":"{ ok }"}')).replaced).to.equal(false);
  });

  it('refuses a multipart request over the upload limit by its Content-Length', () => {
    const { run } = bodySizeHookOf(10);
    expect(() => run(post('multipart/form-data; boundary=x', 'x'.repeat(11)))).to.throw(/at most 10 bytes/);
  });
});
