import { expect } from 'chai';
import { createLogger, dropTestDatabase, newId, testEnv } from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { ChannelsApp, channelsConfig } from '../src';
import { ConnectStateSweep } from '../src/domain/connect/connect-state-sweep';
import { ConnectStateRow } from '../src/entities';
import type { PlatformChannelType } from '../src/entities/platform-channel';

describe('channels: the sweep of expired hosted connect states (decision 0122)', () => {
  let app: ChannelsApp;
  const at = new Date('2026-01-01T12:00:00Z');
  before(async () => {
    app = new ChannelsApp(channelsConfig(testEnv('channels')), { adapters: new Map() });
    await app.start();
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const rows = () => app.dataSource.getRepository(ConnectStateRow);
  const state = (expiresInMs: number, usedAt: Date | null = null) =>
    rows().save({
      id: newId(),
      orgId: newId(),
      type: ChannelType.SOCIAL_APP_D as PlatformChannelType,
      name: '',
      aiAutoReply: false,
      returnUrl: '',
      createdAt: new Date(at.getTime() - 900_000),
      expiresAt: new Date(at.getTime() + expiresInMs),
      usedAt,
      channelId: '',
    });
  const sweep = (batchSize: number) =>
    new ConnectStateSweep(app.dataSource, createLogger('sweep-test', 'silent'), {
      intervalMs: 60_000,
      batchSize,
      clock: () => at,
    });

  it('deletes every expired row in batches, used or not, and keeps the live ones; two replicas at once agree', async () => {
    await rows().clear();
    const expired = await Promise.all(Array.from({ length: 7 }, (_, i) => state(-1 - i * 1000, i % 2 ? at : null)));
    const live = [await state(60_000), await state(1, at)];
    const [first, second] = await Promise.all([sweep(3).sweep(), sweep(2).sweep()]);
    expect(first + second).to.equal(expired.length);
    expect((await rows().find()).map((r) => r.id).sort()).to.deep.equal(live.map((r) => r.id).sort());
    expect(await sweep(3).sweep()).to.equal(0);
  });
});
