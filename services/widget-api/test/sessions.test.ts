import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { Unauthenticated, dropTestDatabase, openDataSource, testDbUrl } from '@svc/kit';
import { widgetData } from '../src/data';
import { Sessions } from '../src/domain/sessions';

describe('WidgetApi.Sessions', () => {
  const url = testDbUrl('widget_api_sessions');
  let dataSource: DataSource;
  let now = Date.parse('2026-01-01T00:00:00Z');
  let sessions: Sessions;
  const visitor = { orgId: 'o'.repeat(24), channelId: 'c'.repeat(24), contactId: 'p'.repeat(24), userId: '' };

  before(async () => {
    dataSource = await openDataSource({ ...widgetData, url }, { migrate: true });
    sessions = new Sessions(dataSource, 30 * 86_400_000, () => now);
  });
  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  const refused = (rotating: Promise<unknown>) =>
    rotating.then(
      () => undefined,
      (error: unknown) => error,
    );

  it('replaces the refresh token on every use, and only on the integration it belongs to', async () => {
    const { session, refreshToken } = await sessions.create(visitor);
    const next = await sessions.rotate(refreshToken, visitor.channelId);
    expect(next.session.id).to.equal(session.id);
    expect(next.refreshToken).not.to.equal(refreshToken);
    expect(await refused(sessions.rotate(next.refreshToken, 'x'.repeat(24)))).to.be.instanceOf(Unauthenticated);
    expect(await sessions.current(next.refreshToken, visitor.channelId)).to.include({ id: session.id });
  });

  it('takes a replaced token shortly after for a race, later for theft: the session then ends', async () => {
    const first = await sessions.create(visitor);
    const second = await sessions.rotate(first.refreshToken, visitor.channelId);
    // Two tabs refreshing at once: the loser is refused, the session lives on.
    expect(await refused(sessions.rotate(first.refreshToken, visitor.channelId))).to.be.instanceOf(Unauthenticated);
    expect(await sessions.current(second.refreshToken, visitor.channelId)).not.to.equal(undefined);
    now += 120_000;
    expect(await refused(sessions.rotate(first.refreshToken, visitor.channelId))).to.be.instanceOf(Unauthenticated);
    expect(await sessions.current(second.refreshToken, visitor.channelId)).to.equal(undefined);
  });

  it('refuses a token after it expired or its session ended', async () => {
    const expiring = await sessions.create(visitor);
    now += 31 * 86_400_000;
    expect(await refused(sessions.rotate(expiring.refreshToken, visitor.channelId))).to.be.instanceOf(Unauthenticated);
    const ended = await sessions.create(visitor);
    await sessions.end(ended.session.id);
    expect(await refused(sessions.rotate(ended.refreshToken, visitor.channelId))).to.be.instanceOf(Unauthenticated);
    now += 2 * 86_400_000;
    expect(await sessions.prune()).to.be.greaterThan(0);
  });
});
