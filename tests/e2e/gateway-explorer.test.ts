import { expect } from 'chai';
import { StackHarness } from '../support/stack-harness';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('landing page and GraphQL explorer (embedded stack)', function () {
  const harness = new StackHarness();

  before(async function () {
    this.timeout(120_000);
    await harness.start();
  });

  after(async () => harness.stop());

  it('serves a landing page at / naming what runs and where to go', async () => {
    const response = await fetch(`${harness.url}/`, { headers: BROWSER });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    const page = await response.text();
    for (const service of harness.stack.apps.map((app) => app.spec.name)) expect(page).to.contain(service);
    expect(page).to.contain('href="/graphql"');
    expect(page).to.contain('docs/api.md');
    expect(page).to.contain('<a href="/demo">Widget demo</a>');
    expect(page, 'no demo org in this suite').to.contain('SVC_SEED_DEMO=false');
  });

  it('serves GraphiQL to a browser at /graphql, with an Authorization header to fill in', async () => {
    for (const url of [
      `${harness.url}/graphql`,
      `${harness.url}/graphql?query=${encodeURIComponent('{ orgApiKeys { id } }')}`,
    ]) {
      const response = await fetch(url, { headers: BROWSER });
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/html/);
      const page = await response.text();
      expect(page).to.contain('svc-inbox GraphQL explorer');
      expect(page).to.contain('Bearer <API key or session token>');
      expect(page, 'the page carries no data').not.to.contain('"data"');
    }
  });

  it('still answers 401 to every operation without credentials', async () => {
    const get = await fetch(`${harness.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { accept: 'application/json' },
    });
    expect(get.status).to.equal(401);
    const post = await harness.graphql('{ __typename }');
    expect(post.status).to.equal(401);
    expect(post.body.errors?.[0]?.extensions?.code).to.equal('UNAUTHENTICATED');
  });
});

describe('GraphQL explorer switched off (GATEWAY_EXPLORER=false)', function () {
  const harness = new StackHarness({}, { GATEWAY_EXPLORER: 'false' });

  before(async function () {
    this.timeout(120_000);
    await harness.start();
  });

  after(async () => harness.stop());

  it('does not serve GraphiQL: a browser gets 401, and the landing page says the explorer is off', async () => {
    const response = await fetch(`${harness.url}/graphql`, { headers: BROWSER });
    expect(response.status).to.equal(401);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    const page = await (await fetch(`${harness.url}/`)).text();
    expect(page).not.to.contain('href="/graphql"');
    expect(page).to.contain('GATEWAY_EXPLORER=false');
  });
});
