import { expect } from 'chai';
import { ConfigError, newKeyEntry, testEnv } from '@svc/kit';
import { partnerConfig } from '../src/config';

function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('partner settings', () => {
  const production = { ...testEnv('partner'), NODE_ENV: 'production', PARTNER_SECRETS_KEYS: newKeyEntry('k1') };

  it('refuses PARTNER_WEBHOOK_INSECURE_URLS=true in production, also for the migration Job', () => {
    for (const migrating of [false, true])
      expect(
        configError(() => partnerConfig({ ...production, PARTNER_WEBHOOK_INSECURE_URLS: 'true' }, { migrating })),
      ).to.include('PARTNER_WEBHOOK_INSECURE_URLS: must not be true in production');
  });

  it('accepts the insecure setting outside production, off by default', () => {
    const insecure = partnerConfig({ ...testEnv('partner'), PARTNER_WEBHOOK_INSECURE_URLS: 'true' });
    expect(insecure.PARTNER_WEBHOOK_INSECURE_URLS).to.equal(true);
    expect(partnerConfig(production).PARTNER_WEBHOOK_INSECURE_URLS).to.equal(false);
  });

  it('requires PARTNER_SECRETS_KEYS to serve in production, not to migrate', () => {
    const withoutKeys = { ...production, PARTNER_SECRETS_KEYS: '' };
    expect(configError(() => partnerConfig(withoutKeys))).to.include('PARTNER_SECRETS_KEYS: required in production');
    expect(partnerConfig(withoutKeys, { migrating: true }).NODE_ENV).to.equal('production');
  });

  it('keeps a rotated-out secret signing for 24 hours unless told otherwise', () => {
    expect(partnerConfig(testEnv('partner')).PARTNER_SECRET_ROTATION_GRACE_MS).to.equal(86_400_000);
    expect(
      partnerConfig({ ...testEnv('partner'), PARTNER_SECRET_ROTATION_GRACE_MS: '0' }).PARTNER_SECRET_ROTATION_GRACE_MS,
    ).to.equal(0);
  });
});
