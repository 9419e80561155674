import { expect } from 'chai';
import { ApiScope, eventually } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { WidgetReplica } from '../support/widget-replica';
import { SITE, SseReader, WidgetFixtures, web, type SessionBody } from '../support/widget';

const UPDATE = 'mutation($id: ID!, $i: WebIntegrationInput!) { updateWebIntegration(id: $id, input: $i) { status } }';
const DELETE = 'mutation($id: ID!) { deleteWebIntegration(id: $id) { deleted } }';

describe('widget-api when an integration is disabled or deleted (whole stack over HTTP)', function () {
  const harness = new StackHarness({ WIDGET_SSE_HEARTBEAT_MS: '200' });
  let org: TestOrg;
  let fixtures: WidgetFixtures;
  let adminKey: string;
  let url: string;
  let replica: WidgetReplica;
  const streams: SseReader[] = [];

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    url = harness.url;
    org = await harness.newOrg('Widget status');
    fixtures = new WidgetFixtures(harness, org);
    adminKey = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    replica = await WidgetReplica.start(harness, 'widget-api-status');
  });

  afterEach(async () => {
    for (const stream of streams.splice(0)) await stream.close();
  });

  after(async () => {
    await replica?.stop();
    await harness.stop();
  });

  async function gql(query: string, variables: Record<string, unknown>): Promise<void> {
    const response = await harness.graphql(query, variables, adminKey);
    if (!response.body.data) throw new Error(JSON.stringify(response.body));
  }

  async function visitor(publicKey: string): Promise<SessionBody> {
    const started = await web<SessionBody>(url, '/visitor/start-anonymous', { body: { publicKey }, origin: SITE });
    if (started.status !== 200) throw new Error(JSON.stringify(started.body));
    return started.body;
  }

  async function stream(session: SessionBody, baseUrl: string): Promise<SseReader> {
    const opened = await SseReader.open(baseUrl, session.chat._id, session.sessionToken, { origin: SITE });
    streams.push(opened);
    expect(opened.status).to.equal(200);
    return opened;
  }

  /** A visitor with a stream on the stack's widget-api and one on the replica. */
  async function streamingVisitor() {
    const { integration } = await fixtures.integration();
    const session = await visitor(integration.publicKey);
    const onStack = await stream(session, url);
    const onReplica = await stream(session, replica.url);
    await eventually(async () => replica.app.streamCount > 0, 10_000, 'stream on the replica');
    return { integration, session, onStack, onReplica };
  }

  /** Every request of the session, the stream on both replicas and a refresh: the documented 404. */
  async function expectRefused(session: SessionBody, publicKey: string) {
    const chatId = session.chat._id;
    for (const base of [url, replica.url]) {
      const reconnect = await SseReader.open(base, chatId, session.sessionToken, { origin: SITE });
      streams.push(reconnect);
      expect(reconnect.status, base).to.equal(404);
      const history = await web(base, `/chats/${chatId}/messages`, { token: session.sessionToken, origin: SITE });
      expect(history.status).to.equal(404);
      expect(history.body.error).to.include({ code: 'NOT_FOUND' });
      const send = await web(base, `/chats/${chatId}/messages`, {
        body: { clientMessageId: 'after', text: 'anyone?' },
        token: session.sessionToken,
        origin: SITE,
      });
      expect(send.status).to.equal(404);
    }
    const refresh = await web(url, '/visitor/refresh', { body: { publicKey, refreshToken: session.refreshToken } });
    expect(refresh.status).to.equal(404);
  }

  it('ends the streams of a disabled integration on every replica and refuses its sessions', async () => {
    const { integration, session, onStack, onReplica } = await streamingVisitor();
    const bystander = await streamingVisitor();
    await gql(UPDATE, { id: integration.id, i: { status: 'DISABLED' } });
    for (const reader of [onStack, onReplica]) await eventually(async () => reader.ended, 10_000, 'stream ended');
    await expectRefused(session, integration.publicKey);
    // Another integration's streams stay open.
    expect(bystander.onStack.ended || bystander.onReplica.ended).to.equal(false);

    // Enabled again, the same session works again.
    await gql(UPDATE, { id: integration.id, i: { status: 'ACTIVE' } });
    await eventually(async () => {
      const history = await web(url, `/chats/${session.chat._id}/messages`, { token: session.sessionToken });
      return history.status === 200;
    });
  });

  it('keeps the streams of an integration whose update leaves it active', async () => {
    const { integration, onStack, onReplica } = await streamingVisitor();
    await gql(UPDATE, { id: integration.id, i: { name: 'Renamed shop' } });
    await eventually(async () => {
      const config = await web<{ name: string }>(replica.url, `/config/${integration.publicKey}`);
      return config.body.name === 'Renamed shop';
    });
    expect(onStack.ended || onReplica.ended).to.equal(false);
  });

  it('ends the streams of a deleted integration on every replica and refuses its sessions', async () => {
    const { integration, session, onStack, onReplica } = await streamingVisitor();
    await gql(DELETE, { id: integration.id });
    for (const reader of [onStack, onReplica]) await eventually(async () => reader.ended, 10_000, 'stream ended');
    await expectRefused(session, integration.publicKey);
  });
});
