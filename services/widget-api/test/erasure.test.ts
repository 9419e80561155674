import { expect } from 'chai';
import {
  EmbeddedBus,
  ERASE_CONFIRMED,
  ERASE_REQUESTED,
  ERASURE_TOPIC,
  Unauthenticated,
  dropTestDatabase,
  eventually,
  generateTrustKeys,
  importSigningKey,
  newId,
  participantRoundTrip,
  testEnv,
  testErasure,
  documentedErasureKinds,
} from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { WidgetApiApp, widgetConfig } from '../src';
import { VisitorSessionRow } from '../src/entities';
import { WIDGET_CONTACT_ROWS } from '../src/domain/erasure';
import { SESSION_ISSUER, SessionTokens } from '../src/domain/session-tokens';
import { Sessions } from '../src/domain/sessions';
import { subscribeFeed } from '../src/realtime/feed';
import type { RealtimeHub } from '../src/realtime/hub';

describe('widget-api: erasing a contact (decision 0173)', () => {
  it('counts the kinds docs/erasure.md lists for it, in that order', () => {
    expect(WIDGET_CONTACT_ROWS.kinds).to.deep.equal(documentedErasureKinds('widget-api'));
  });

  let app: WidgetApiApp;
  let sessions: Sessions;
  let tokens: SessionTokens;

  before(async () => {
    app = new WidgetApiApp(widgetConfig(testEnv('widget-api')), { serveHttp: false });
    await app.start();
    sessions = new Sessions(app.dataSource, 86_400_000);
    const keys = generateTrustKeys([SESSION_ISSUER]);
    tokens = new SessionTokens(
      importSigningKey(SESSION_ISSUER, JSON.stringify(keys.signing[SESSION_ISSUER])),
      JSON.parse(keys.jwks),
      900,
      Date.now,
      (sessionId) => sessions.exists(sessionId),
    );
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  it("deletes the contact's sessions: refresh tokens and session tokens refused at once, others untouched", async () => {
    const orgId = newId();
    const channelId = newId();
    const contactId = newId();
    const visitor = { orgId, channelId, contactId, userId: 'user-1' };
    const first = await sessions.create(visitor);
    const second = await sessions.create({ ...visitor, userId: '' });
    await sessions.end(second.session.id);
    const other = await sessions.create({ ...visitor, contactId: newId() });
    const sign = (session: { id: string; contactId: string }) =>
      tokens.sign({ sessionId: session.id, orgId, channelId, contactId: session.contactId, publicKey: 'wk_x' });
    const token = await sign(first.session);
    const otherToken = await sign(other.session);
    expect(await tokens.verify(token.token)).to.include({ contactId });

    expect(await WIDGET_CONTACT_ROWS.count(app.dataSource.manager, orgId, contactId)).to.deep.equal([
      { kind: 'widget_sessions', count: 2 },
    ]);
    const erase = () => app.dataSource.transaction((manager) => WIDGET_CONTACT_ROWS.erase(manager, orgId, contactId));
    expect(await erase()).to.deep.equal([{ kind: 'widget_sessions', count: 2 }]);

    expect(await refusal(sessions.rotate(first.refreshToken, channelId))).to.be.instanceOf(Unauthenticated);
    expect(await refusal(tokens.verify(token.token))).to.be.instanceOf(Unauthenticated);
    expect(await tokens.verify(otherToken.token)).to.include({ sessionId: other.session.id });
    expect(await sessions.current(other.refreshToken, channelId)).to.include({ id: other.session.id });
    expect(await erase(), 'erasing again').to.deep.equal([{ kind: 'widget_sessions', count: 0 }]);
  });

  it("ends a contact's streams on its erasure request and on widget-api's confirmation, on every replica", async () => {
    const bus = new EmbeddedBus();
    await bus.start();
    const ended: string[] = [];
    const subscription = await subscribeFeed(bus, '', {
      hub: { changed: () => undefined, typing: () => undefined } as unknown as RealtimeHub,
      channelChanged: () => undefined,
      contactErased: (contactId) => ended.push(contactId),
      orgErased: () => undefined,
    });
    const event = (type: string, contactId: string, service = '') => ({
      topic: ERASURE_TOPIC,
      // One key, so one partition: handled in the order published.
      key: 'one-partition',
      value: Buffer.from(
        Envelope.encode(
          Envelope.fromPartial({
            id: newId(),
            type,
            orgId: newId(),
            erasure: { erasureId: newId(), contactId, service, counts: [] },
          }),
        ).finish(),
      ),
    });
    try {
      const [requested, confirmedHere, confirmedElsewhere] = [newId(), newId(), newId()];
      await bus.publish([
        event(ERASE_CONFIRMED, confirmedElsewhere, 'inbox'),
        event(ERASE_REQUESTED, requested),
        event(ERASE_CONFIRMED, confirmedHere, 'widget-api'),
      ]);
      await eventually(() => Promise.resolve(ended.length >= 2));
      expect(ended).to.deep.equal([requested, confirmedHere]);
    } finally {
      await subscription.stop();
      await bus.stop();
    }
  });

  it('serves PreviewErasure on its gRPC port, deletes the sessions on contact.erase_requested and confirms', async () => {
    const orgId = newId();
    const contactId = newId();
    await sessions.create({ orgId, channelId: newId(), contactId, userId: '' });
    await sessions.create({ orgId, channelId: newId(), contactId: newId(), userId: '' });
    const { preview, confirmed } = await participantRoundTrip(app, testErasure(orgId, contactId));
    expect(preview).to.deep.equal([{ kind: 'widget_sessions', count: 1 }]);
    expect(confirmed).to.deep.equal(preview);
    expect(await app.dataSource.manager.countBy(VisitorSessionRow, { orgId })).to.equal(1);
  });
});
