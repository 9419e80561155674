import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import {
  FakeChannels,
  PrincipalKind,
  callerMetadata,
  dropTestDatabase,
  grpcClient,
  newId,
  principalFor,
  rejection,
  unary,
  testEnv,
} from '@svc/kit';
import {
  InboundIdentifierType,
  WebhookIngressServiceClient,
  type InboundConnectionInput,
} from '@svc/proto/webhooks/v1';
import { WebhookIngressApp, ingressConfig } from '../src';

/** A connection's channel is a channel of the org, asked of channels before anything is written (decision 0042). */
describe('WebhookIngressService: a connection’s channelIntegrationId', () => {
  const channels = new FakeChannels();
  let app: WebhookIngressApp;
  let client: WebhookIngressServiceClient;
  const orgId = newId();
  const own = newId();
  const theirs = newId();

  before(async () => {
    await channels.start();
    channels.channels.set(own, orgId);
    channels.channels.set(theirs, newId());
    app = new WebhookIngressApp(ingressConfig(testEnv('webhook_ingress_channels')), {
      serveHttp: false,
      channelsAddress: () => channels.address,
    });
    await app.start();
    client = grpcClient(WebhookIngressServiceClient, `127.0.0.1:${app.grpcPort}`);
  });

  after(async () => {
    client.close();
    await app.stop();
    channels.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const member = () => callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'webhook-ingress');
  const input = (channelIntegrationId?: string): InboundConnectionInput => ({
    name: 'signups',
    identifierType: InboundIdentifierType.CHANNEL_USER_ID,
    identifierPath: '$.user',
    channelIntegrationId,
  });
  const create = async (channelIntegrationId?: string) =>
    unary(client.createInboundConnection.bind(client), { input: input(channelIntegrationId) }, await member());
  const update = async (id: string, channelIntegrationId: string) =>
    unary(client.updateInboundConnection.bind(client), { id, input: { channelIntegrationId } }, await member());
  const refusal = async (call: Promise<unknown>) => {
    const error = await rejection(call);
    return { code: error.code, field: error.metadata?.get('x-svc-error-field')[0], details: error.details };
  };
  const names = async () =>
    (await unary(client.listInboundConnections.bind(client), {}, await member())).connections.map((c) => [
      c.name,
      c.channelIntegrationId,
    ]);

  it('stores a channel of the org on create and update', async () => {
    const created = await create(own);
    expect(created.channelIntegrationId).to.equal(own);
    const updated = await update(created._id ?? '', own);
    expect(updated.channelIntegrationId).to.equal(own);
  });

  it("answers NOT_FOUND naming channelIntegrationId for another org's channel exactly as for an unknown one", async () => {
    const kept = await create(own);
    const before = await names();
    const notFound = {
      code: status.NOT_FOUND,
      field: 'channelIntegrationId',
      details: 'channelIntegrationId names no channel of this org',
    };
    for (const channel of [theirs, newId()]) {
      expect(await refusal(create(channel))).to.deep.equal(notFound);
      expect(await refusal(update(kept._id ?? '', channel))).to.deep.equal(notFound);
    }
    expect(await names()).to.deep.equal(before);
  });

  it('answers a malformed channel id BAD_USER_INPUT without asking channels', async () => {
    const asked = channels.asked;
    expect((await refusal(create('not-an-id'))).code).to.equal(status.INVALID_ARGUMENT);
    expect(channels.asked).to.equal(asked);
  });

  it('answers UNAVAILABLE and stores nothing when channels does not answer', async () => {
    const kept = await create(own);
    const before = await names();
    channels.down = true;
    try {
      expect((await refusal(create(own))).code).to.equal(status.UNAVAILABLE);
      expect((await refusal(update(kept._id ?? '', own))).code).to.equal(status.UNAVAILABLE);
    } finally {
      channels.down = false;
    }
    expect(await names()).to.deep.equal(before);
  });
});
