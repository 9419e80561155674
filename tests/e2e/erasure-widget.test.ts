import { expect } from 'chai';
import { ApiScope, eventually } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { WidgetReplica } from '../support/widget-replica';
import { SITE, SseReader, WidgetFixtures, web, type SessionBody } from '../support/widget';

const PREVIEW = 'query($c: String!) { previewErase(contactId: $c) { services { service counts { kind count } } } }';
const ERASE = `mutation($c: String!) {
  eraseContact(contactId: $c) { id services { service confirmed counts { kind count } } }
}`;

/** The visitor's contact, as its session token names it (claim `ct`). */
function contactOf(session: SessionBody): string {
  const [, payload = ''] = session.sessionToken.split('.');
  return (JSON.parse(Buffer.from(payload, 'base64url').toString()) as { ct: string }).ct;
}

interface ServiceCounts {
  service: string;
  confirmed?: boolean;
  counts: { kind: string; count: number }[];
}

/**
 * A website visitor erased (decision 0173): from the request on its streams end on every widget-api replica, and
 * once widget-api erased its part its session token and refresh token are refused everywhere.
 */
describe('erasing a website visitor (whole stack over HTTP)', function () {
  const harness = new StackHarness({ WIDGET_SSE_HEARTBEAT_MS: '200' });
  let org: TestOrg;
  let fixtures: WidgetFixtures;
  let eraserKey: string;
  let replica: WidgetReplica;
  const streams: SseReader[] = [];

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Widget erasure');
    fixtures = new WidgetFixtures(harness, org);
    eraserKey = (await org.mintKey([ApiScope.CONTACTS_ERASE])).key;
    replica = await WidgetReplica.start(harness, 'widget-api-erasure');
  });

  after(async () => {
    for (const stream of streams.splice(0)) await stream.close();
    await replica?.stop();
    await harness.stop();
  });

  async function visitor(publicKey: string): Promise<SessionBody> {
    const started = await web<SessionBody>(harness.url, '/visitor/start-anonymous', {
      body: { publicKey, name: 'Ann Visitor', email: `ann-${Date.now()}@example.com` },
      origin: SITE,
    });
    if (started.status !== 200) throw new Error(JSON.stringify(started.body));
    return started.body;
  }

  async function stream(session: SessionBody, baseUrl: string): Promise<SseReader> {
    const opened = await SseReader.open(baseUrl, session.chat._id, session.sessionToken, { origin: SITE });
    streams.push(opened);
    expect(opened.status).to.equal(200);
    return opened;
  }

  async function widgetPart<K extends 'previewErase' | 'eraseContact'>(
    query: string,
    field: K,
    contactId: string,
  ): Promise<ServiceCounts | undefined> {
    const response = await harness.graphql<Record<K, { services: ServiceCounts[] }>>(
      query,
      { c: contactId },
      eraserKey,
    );
    const services = response.body.data?.[field].services;
    if (!services) throw new Error(JSON.stringify(response.body));
    return services.find((s) => s.service === 'widget-api');
  }

  it('ends the streams on every replica, refuses the session and refresh tokens, and confirms the sessions', async () => {
    const { integration } = await fixtures.integration();
    const session = await visitor(integration.publicKey);
    const contactId = contactOf(session);
    const onStack = await stream(session, harness.url);
    const onReplica = await stream(session, replica.url);
    const bystander = await visitor(integration.publicKey);
    const bystanderStream = await stream(bystander, replica.url);
    await eventually(async () => replica.app.streamCount === 2, 10_000, 'streams on the replica');

    expect((await widgetPart(PREVIEW, 'previewErase', contactId))?.counts).to.deep.equal([
      { kind: 'widget_sessions', count: 1 },
    ]);
    await widgetPart(ERASE, 'eraseContact', contactId);

    for (const reader of [onStack, onReplica]) await eventually(async () => reader.ended, 10_000, 'stream ended');
    const confirmed = await eventually(async () => {
      const part = await widgetPart(ERASE, 'eraseContact', contactId);
      return part?.confirmed ? part : undefined;
    });
    expect(confirmed.counts).to.deep.equal([{ kind: 'widget_sessions', count: 1 }]);

    for (const base of [harness.url, replica.url]) {
      const history = await web(base, `/chats/${session.chat._id}/messages`, {
        token: session.sessionToken,
        origin: SITE,
      });
      expect(history.status, base).to.equal(401);
      const reconnect = await SseReader.open(base, session.chat._id, session.sessionToken, { origin: SITE });
      streams.push(reconnect);
      expect(reconnect.status, base).to.equal(401);
    }
    const refresh = await web(harness.url, '/visitor/refresh', {
      body: { publicKey: integration.publicKey, refreshToken: session.refreshToken },
      origin: SITE,
    });
    expect(refresh.status).to.equal(401);

    // Another visitor of the same integration keeps its stream and its session.
    expect(bystanderStream.ended).to.equal(false);
    const own = await web(harness.url, `/chats/${bystander.chat._id}/messages`, {
      token: bystander.sessionToken,
      origin: SITE,
    });
    expect(own.status).to.equal(200);
  });
});
