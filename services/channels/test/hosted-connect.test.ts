import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { ApiScope, apiKeyPrincipal, createLogger, newId, testEnv } from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { channelsConfig } from '../src';
import { platformAdapters } from '../src/platforms';
import type { PlatformConnections } from '../src/domain/connect/connect';
import { HostedConnect } from '../src/domain/connect/hosted';

describe('Hosted connect: what is refused before anything is stored (decision 0122)', () => {
  const manager = apiKeyPrincipal(newId(), [ApiScope.CHANNELS_MANAGE]);
  /** Nothing may reach the database in these cases: any use of it fails the test. */
  const untouchable = new Proxy({} as DataSource, {
    get: (_target, property) => {
      throw new Error(`the database was used (${String(property)})`);
    },
  });
  const hosted = (env: Record<string, string> = {}) => {
    const config = channelsConfig({ ...testEnv('channels'), ...env });
    return new HostedConnect(
      untouchable,
      {} as PlatformConnections,
      config,
      platformAdapters(config),
      createLogger('test', 'silent'),
    );
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { code?: string; message: string; details?: Record<string, string> }) => ({
        code: error.code,
        message: error.message,
        field: error.details?.field,
      }),
    );

  it('is FAILED_PRECONDITION for a kind whose app id or secret is not configured', async () => {
    for (const [type, env] of [
      [ChannelType.CHAT_APP_A, {}],
      [ChannelType.CHAT_APP_A, { CHAT_APP_A_APP_ID: '123' }],
      [ChannelType.SOCIAL_APP_D, { SOCIAL_APP_D_APP_SECRET: 'f'.repeat(32) }],
    ] as const) {
      const refused = await refusal(hosted(env).create(manager, { type, returnUrl: '', options: undefined }));
      expect(refused?.code, JSON.stringify(env)).to.equal('FAILED_PRECONDITION');
      expect(refused?.message).to.match(/not configured/);
    }
  });

  it('is BAD_USER_INPUT naming type for a kind without a hosted connect, and FORBIDDEN without CHANNELS_MANAGE', async () => {
    const configured = hosted({ CHAT_APP_A_APP_ID: '123', CHAT_APP_A_APP_SECRET: 'f'.repeat(32) });
    for (const type of [ChannelType.WEB, ChannelType.CHAT_APP_B, ChannelType.CHAT_APP_C])
      expect(await refusal(configured.create(manager, { type, returnUrl: '', options: undefined }))).to.deep.include({
        code: 'BAD_USER_INPUT',
        field: 'type',
      });
    const reader = apiKeyPrincipal(newId(), [ApiScope.MESSAGES_READ]);
    expect(
      (await refusal(configured.create(reader, { type: ChannelType.CHAT_APP_A, returnUrl: '', options: undefined })))
        ?.code,
    ).to.equal('FORBIDDEN');
  });

  it('refuses a callback without a state or with one it did not make before touching the database', async () => {
    const configured = hosted({ CHAT_APP_A_APP_ID: '123', CHAT_APP_A_APP_SECRET: 'f'.repeat(32) });
    for (const state of [undefined, '', 'x.y.z', 'garbage'])
      expect(
        await configured.complete({ state, code: 'c' }).then(
          () => 'accepted',
          (e: Error) => e.message,
        ),
      ).to.match(/no state|not one this service made/);
  });
});
