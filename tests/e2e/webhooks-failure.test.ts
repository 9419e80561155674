import { expect } from 'chai';
import { newId } from '@svc/kit';
import { StackHarness } from '../support/stack-harness';
import { SIGNERS, connectionInputFor, signingSecretFor } from '../support/webhook-signers';
import { WebhookFixtures, postWebhook } from '../support/webhooks';

/**
 * The ERROR outcome of spec 7.2: an unclassified failure (the contacts service is down; a signing secret that cannot
 * be opened) still answers 500 with the request id and writes its history row. Its own stack, because it stops one
 * of the services and tampers with the ingress database.
 */
describe('Inbound webhooks when a dependency fails (whole stack over HTTP)', function () {
  const harness = new StackHarness();

  before(async function () {
    this.timeout(120_000);
    await harness.start();
  });

  after(async () => harness.stop());

  it('answers 500 ERROR, not 202, when a sealed signing secret was copied from another connection', async () => {
    const org = await harness.newOrg('Sealed');
    const fixtures = new WebhookFixtures(harness, org);
    const mode = 'HUB_SIGNATURE_256';
    const secret = signingSecretFor(mode);
    const source = await fixtures.connection(connectionInputFor(mode, secret));
    const target = await fixtures.connection(connectionInputFor(mode, signingSecretFor(mode)));
    await fixtures.publishedFlow(target._id);
    // The sealed value names its connection and org as associated data: moved to another row it no longer opens.
    // (Contacts is still up here: were the secret accepted, the request would end in 422, not 500.)
    const db = harness.stack.ingress.dataSource;
    const [sealed] = (await db.query('SELECT signing_secret_sealed AS s FROM inbound_connections WHERE id = ?', [
      source._id,
    ])) as { s: string }[];
    await db.query('UPDATE inbound_connections SET signing_secret_sealed = ? WHERE id = ?', [sealed?.s, target._id]);
    const body = JSON.stringify({ customer: { email: 'a@example.com' } });
    const requestId = `req-${newId()}`;
    const response = await postWebhook(harness, target._id, body, {
      ...SIGNERS[mode]!(body, secret),
      'x-request-id': requestId,
    });
    expect([response.status, response.body.outcome]).to.deep.equal([500, 'ERROR']);
    const row = (await fixtures.history(target._id, 'ERROR')).find((r) => r.requestId === requestId);
    expect(row).to.include({ outcome: 'ERROR', httpStatus: 500 });
  });

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
