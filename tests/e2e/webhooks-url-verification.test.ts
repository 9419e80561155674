import { expect } from 'chai';
import { eventually, newId } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { SIGNERS, connectionInputFor, signingSecretFor } from '../support/webhook-signers';
import { WebhookFixtures, allFlowRuns, graphqlData, postWebhook } from '../support/webhooks';

const MODE = 'TEAM_CHAT_PROVIDER';

/** The handshake the team-chat provider sends before any event (decision 0045). */
function handshake(challenge: string): string {
  return JSON.stringify({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge, type: 'url_verification' });
}

describe('Inbound webhooks: team-chat provider URL verification (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let fixtures: WebhookFixtures;
  let email: string;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Webhook handshake');
    fixtures = new WebhookFixtures(harness, org);
    email = `handshake-${newId()}@example.com`;
    await fixtures.contactWithChat(email);
  });

  after(async () => harness.stop());

  async function teamChatConnection() {
    const secret = signingSecretFor(MODE);
    const connection = await fixtures.connection(connectionInputFor(MODE, secret));
    const flowId = await fixtures.publishedFlow(connection._id);
    return { connection, flowId, secret };
  }

  it('answers a signed url_verification 200 with the challenge, logs URL_VERIFIED and starts no flow', async () => {
    const { connection, flowId, secret } = await teamChatConnection();
    const challenge = `3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P-${newId()}`;
    const body = handshake(challenge);
    const { response, row } = await fixtures.postLogged(connection._id, body, SIGNERS[MODE]!(body, secret));
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(response.body).to.deep.equal({ challenge });
    expect(row).to.include({ outcome: 'URL_VERIFIED', httpStatus: 200, replay: false });
    expect(row.flowIds).to.deep.equal([]);
    expect(await fixtures.history(connection._id, 'URL_VERIFIED')).to.have.length(1);

    // The next event is accepted and runs the flow: once its run exists, a run the handshake started would too.
    const event = JSON.stringify({ customer: { email }, type: 'event_callback' });
    const accepted = await postWebhook(harness, connection._id, event, SIGNERS[MODE]!(event, secret));
    expect(accepted.status).to.equal(202);
    const runs = await eventually(async () => {
      const all = await allFlowRuns(harness, org.sessionToken, flowId);
      return all.some((run) => run.requestId === accepted.body.requestId) ? all : undefined;
    });
    expect(runs.map((run) => run.requestId)).to.deep.equal([accepted.body.requestId]);
  });

  it('answers 401 UNAUTHORIZED to an unsigned or badly signed url_verification, with its history row', async () => {
    const { connection, secret } = await teamChatConnection();
    const body = handshake(`challenge-${newId()}`);
    const cases: Record<string, string>[] = [
      {},
      SIGNERS[MODE]!(body, signingSecretFor(MODE)),
      SIGNERS[MODE]!(body, secret, { at: Math.floor(Date.now() / 1000) - 400 }),
    ];
    for (const headers of cases) {
      const { response, row } = await fixtures.postLogged(connection._id, body, headers);
      expect([response.status, response.body.outcome]).to.deep.equal([401, 'UNAUTHORIZED']);
      expect(response.body).not.to.have.property('challenge');
      expect(row).to.include({ outcome: 'UNAUTHORIZED', httpStatus: 401 });
    }
  });

  it('answers the handshake while the capture tunnel is open, which stays open for the first real event', async () => {
    const { connection, secret } = await teamChatConnection();
    const open = await fixtures.connectionAction('captureInboundConnectionSchema', connection._id);
    const challenge = `challenge-${newId()}`;
    const body = handshake(challenge);
    const answer = await postWebhook(harness, connection._id, body, SIGNERS[MODE]!(body, secret));
    expect([answer.status, answer.body]).to.deep.equal([200, { challenge }]);
    const after = await graphqlData<{
      inboundConnection: { captureOpenUntil: string | null; payloadSchema: { version: number } };
    }>(
      harness,
      org.sessionToken,
      'query($id: String!) { inboundConnection(id: $id) { captureOpenUntil payloadSchema { version } } }',
      { id: connection._id },
    );
    expect(after.inboundConnection.captureOpenUntil).to.equal(open.captureOpenUntil);
    expect(after.inboundConnection.payloadSchema.version).to.equal(open.payloadSchema.version);
  });

  it('treats a url_verification body as any payload on a connection of another mode', async () => {
    const connection = await fixtures.connection({});
    const { response, row } = await fixtures.postLogged(connection._id, handshake(`challenge-${newId()}`), {
      'x-webhook-secret': connection.secret ?? '',
    });
    expect([response.status, response.body.outcome]).to.deep.equal([422, 'IDENTIFIER_NOT_FOUND']);
    expect(row.outcome).to.equal('IDENTIFIER_NOT_FOUND');
  });
});
