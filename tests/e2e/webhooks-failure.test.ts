import { expect } from 'chai';
import { newId } from '@svc/kit';
import { StackHarness } from '../support/stack-harness';
import { WebhookFixtures, postWebhook } from '../support/webhooks';

/**
 * The ERROR outcome of spec 7.2: an unclassified failure (here the contacts service is down) still answers 500 with
 * the request id and writes its history row. Its own stack, because it stops one of the services.
 */
describe('Inbound webhooks when a dependency fails (whole stack over HTTP)', function () {
  const harness = new StackHarness();

  before(async function () {
    this.timeout(120_000);
    await harness.start();
  });

  after(async () => harness.stop());

  it('answers 500 ERROR with a history row when the contact cannot be resolved because contacts is down', async () => {
    const org = await harness.newOrg('Failures');
    const fixtures = new WebhookFixtures(harness, org);
    const connection = await fixtures.connection({});
    await fixtures.publishedFlow(connection._id);
    const contacts = harness.stack.apps.find((app) => app.spec.name === 'contacts');
    if (!contacts) throw new Error('the stack has no contacts service');
    contacts.grpc.server.forceShutdown();
    const requestId = `req-${newId()}`;
    const response = await postWebhook(
      harness,
      connection._id,
      JSON.stringify({ customer: { email: 'a@example.com' } }),
      {
        'x-webhook-secret': connection.secret ?? '',
        'x-request-id': requestId,
      },
    );
    expect([response.status, response.body.outcome]).to.deep.equal([500, 'ERROR']);
    expect(response.body.requestId).to.be.a('string');
    const row = (await fixtures.history(connection._id, 'ERROR')).find((r) => r.requestId === requestId);
    expect(row).to.include({ outcome: 'ERROR', httpStatus: 500 });
  });
});
