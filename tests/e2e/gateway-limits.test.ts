import { expect } from 'chai';
import { getIntrospectionQuery } from 'graphql';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type TestOrg } from '../support/stack-harness';

/** `__schema` with `ofType` nested `levels` times: an introspection query as deep as one likes. */
function ofTypeChain(levels: number): string {
  return `{ __schema { types { ${'ofType { '.repeat(levels)}name${' }'.repeat(levels)} } } }`;
}

describe('gateway request limits (docs/decisions/0048)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let key: string;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg();
    key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
  });

  after(async () => harness.stop());

  const post = (body: string | ReadableStream<Uint8Array>, token?: string, headers: Record<string, string> = {}) =>
    fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body,
      ...(typeof body === 'string' ? {} : { duplex: 'half' }),
    } as RequestInit);

  it('answers the standard introspection query and refuses a 50-level ofType chain', async () => {
    const standard = await harness.graphql(getIntrospectionQuery(), {}, key);
    expect(standard.status, JSON.stringify(standard.body.errors)).to.equal(200);
    expect(standard.body.data).to.have.property('__schema');
    const deep = await harness.graphql(ofTypeChain(50), {}, key);
    expect(deep.body.data ?? undefined).to.equal(undefined);
    expect(deep.body.errors?.[0]?.message).to.match(/depth limit of 24 exceeded/);
  });

  it("answers with the caller's x-request-id, or a new one when it sent none or an unusable one (decision 0069)", async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const echoed = await post(body, key, { 'x-request-id': 'client-req-1' });
    expect(echoed.status).to.equal(200);
    expect(echoed.headers.get('x-request-id')).to.equal('client-req-1');
    const generated = [await post(body, key), await post(body, key, { 'x-request-id': 'has spaces' })];
    const ids = generated.map((response) => response.headers.get('x-request-id'));
    for (const id of ids) expect(id).to.match(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).to.equal(2);
  });

  it('refuses a JSON body over 1 MiB with 413 before reading it, with or without credentials', async () => {
    const body = JSON.stringify({ query: `#${'x'.repeat(1024 * 1024)}\n{ __typename }` });
    for (const token of [key, undefined]) {
      const response = await post(body, token);
      expect(response.status).to.equal(413);
      const json = (await response.json()) as { errors: { extensions: { code: string } }[] };
      expect(json.errors[0]?.extensions.code).to.equal('REQUEST_ENTITY_TOO_LARGE');
    }
  });

  it('refuses a body over 1 MiB that streams without a Content-Length', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"query":"{ __typename }"'));
        if (sent > 1024 * 1024 + chunk.byteLength) {
          controller.enqueue(new TextEncoder().encode('}'));
          controller.close();
          return;
        }
        controller.enqueue(chunk);
        sent += chunk.byteLength;
      },
    });
    const response = await post(stream, key);
    expect(response.status).to.equal(413);
    for (let i = 0; i < 2; i += 1)
      expect((await harness.graphql('{ __typename }', {}, key)).body.data, 'the gateway still answers').to.deep.equal({
        __typename: 'Query',
      });
  });

  it('counts comments against the 2000-token limit', async () => {
    const padded = `${'#\n'.repeat(2000)}{ __typename }`;
    const refused = await harness.graphql(padded, {}, key);
    expect(refused.body.errors?.[0]?.message).to.match(/token limit of 2000 exceeded/);
    const fine = await harness.graphql(`${'#\n'.repeat(100)}{ __typename }`, {}, key);
    expect(fine.body.data).to.deep.equal({ __typename: 'Query' });
  });
});
