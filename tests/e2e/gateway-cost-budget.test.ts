import { expect } from 'chai';
import { ApiScope } from '@svc/kit';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type TestOrg } from '../support/stack-harness';
import { dataOf, expectError } from './inbox-fixtures';

const SEARCH = '{ apiSearchMessages(query: "anything") { hasNext } }';

/**
 * The per-key cost budget of the expensive reads, tested by exhausting a tiny budget that refills too slowly to
 * matter during the test (no wall-clock assertion): 10 tokens, apiSearchMessages costs 5.
 */
describe('Gateway cost budget (whole stack over HTTP)', function () {
  const harness = new StackHarness({ GATEWAY_COST_BUDGET: '10', GATEWAY_COST_REFILL_PER_SECOND: '0.001' });
  let org: TestOrg;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg();
  });

  after(async () => harness.stop());

  it('answers RATE_LIMITED with a retry hint, HTTP 429 and Retry-After once the key has spent its budget', async () => {
    const key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    dataOf(await harness.graphql(SEARCH, {}, key));
    dataOf(await harness.graphql(SEARCH, {}, key));
    const response = await fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: SEARCH }),
    });
    const body = (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] };
    expect(response.status).to.equal(429);
    expect(body.errors?.[0]?.extensions?.code).to.equal('RATE_LIMITED');
    const retryAfter = body.errors?.[0]?.extensions?.retryAfterSeconds;
    expect(retryAfter).to.be.a('number').and.greaterThan(0);
    expect(response.headers.get('retry-after')).to.equal(String(retryAfter));
  });

  it('keeps cheap operations and other keys unaffected', async () => {
    const spent = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    const other = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    for (const query of ['{ inboxCounts { total } }', '{ inboxCounts { total } }', '{ inboxCounts { total } }'])
      dataOf(await harness.graphql(query, {}, spent));
    expectError(await harness.graphql(SEARCH, {}, spent), 429, 'RATE_LIMITED');
    dataOf(await harness.graphql('{ labels { hasNext } }', {}, spent));
    dataOf(await harness.graphql(SEARCH, {}, other));
  });

  it('charges every expensive root field of a request, and refuses one that costs more than the whole budget', async () => {
    const key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    const three =
      '{ a: apiSearchMessages(query: "one") { hasNext } b: apiSearchMessages(query: "two") { hasNext } c: inboxCounts { total } }';
    expectError(await harness.graphql(three, {}, key), 400, 'BAD_USER_INPUT');
    dataOf(
      await harness.graphql(
        '{ a: apiSearchMessages(query: "one") { hasNext } b: apiSearchMessages(query: "two") { hasNext } }',
        {},
        key,
      ),
    );
    expectError(await harness.graphql('{ inboxCounts { total } }', {}, key), 429, 'RATE_LIMITED');
  });

  it('charges nothing for a refused operation', async () => {
    const key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER.filter((s) => s !== ApiScope.MESSAGES_READ))).key;
    for (let i = 0; i < 3; i += 1) expectError(await harness.graphql(SEARCH, {}, key), 403, 'FORBIDDEN');
  });
});
