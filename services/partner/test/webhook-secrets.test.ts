import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { SealedSecretError, SecretKeyring, newId } from '@svc/kit';
import {
  SECRET_PREFIX,
  WebhookSecrets,
  loadPartnerKeyring,
  newWebhookSecret,
  type SecretColumns,
} from '../src/domain/webhook-secrets';

const HOUR = 3_600_000;
const keyring = () => new SecretKeyring([{ id: 'k1', key: randomBytes(32) }]);

/** A webhook's secret columns after `issue`. */
function issued(secrets: WebhookSecrets) {
  const owner = { orgId: newId(), id: newId() };
  const { secret, columns } = secrets.issue(owner);
  const row: SecretColumns = { ...owner, ...columns };
  return { secret, row };
}

describe('partner webhook secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes (Standard Webhooks: 24 to 64)', () => {
    const secret = newWebhookSecret();
    expect(secret.startsWith(SECRET_PREFIX)).to.equal(true);
    const bytes = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
    expect(bytes.toString('base64')).to.equal(secret.slice(SECRET_PREFIX.length));
    expect(bytes.length).to.equal(32);
    expect(newWebhookSecret()).not.to.equal(secret);
  });

  it('are stored sealed, never in the clear, and open only for their own webhook', () => {
    const secrets = new WebhookSecrets(keyring(), 24 * HOUR);
    const { secret, row } = issued(secrets);
    expect(row.secretSealed).to.match(/^v1:k1:/);
    expect(row.secretSealed).not.to.include(secret.slice(SECRET_PREFIX.length));
    expect(secrets.signingSecrets(row)).to.deep.equal([secret]);
    const moved = { ...row, id: newId() };
    expect(() => new WebhookSecrets(secrets.keyring, 0).signingSecrets(moved)).to.throw(SealedSecretError);
  });

  it('sign with the new and the previous secret during the grace period, then with the new one only', () => {
    const secrets = new WebhookSecrets(keyring(), 24 * HOUR);
    const { secret: first, row } = issued(secrets);
    const at = new Date('2026-11-25T12:00:00.000Z');
    const rotated = secrets.rotate(row, at);
    const after = { ...row, ...rotated.columns };
    expect(rotated.secret).not.to.equal(first);
    expect(after.previousSecretExpiresAt?.toISOString()).to.equal('2026-11-26T12:00:00.000Z');
    expect(secrets.signingSecrets(after, at)).to.deep.equal([rotated.secret, first]);
    expect(secrets.signingSecrets(after, new Date(at.getTime() + 24 * HOUR - 1))).to.deep.equal([
      rotated.secret,
      first,
    ]);
    expect(secrets.signingSecrets(after, new Date(at.getTime() + 24 * HOUR))).to.deep.equal([rotated.secret]);
  });

  it('rotating again during a grace keeps only the two newest secrets, the grace starting anew', () => {
    const secrets = new WebhookSecrets(keyring(), 24 * HOUR);
    const { secret: first, row } = issued(secrets);
    const at = new Date('2026-11-25T12:00:00.000Z');
    const second = secrets.rotate(row, at);
    const later = new Date(at.getTime() + HOUR);
    const third = secrets.rotate({ ...row, ...second.columns }, later);
    const after = { ...row, ...third.columns };
    expect(secrets.signingSecrets(after, later)).to.deep.equal([third.secret, second.secret]);
    expect(secrets.signingSecrets(after, later)).not.to.include(first);
    expect(after.previousSecretExpiresAt?.getTime()).to.equal(later.getTime() + 24 * HOUR);
  });

  it('with a grace of 0 the old secret stops signing at the rotation', () => {
    const secrets = new WebhookSecrets(keyring(), 0);
    const { row } = issued(secrets);
    const rotated = secrets.rotate(row, new Date());
    expect(rotated.columns.previousSecretSealed).to.equal(null);
    expect(secrets.signingSecrets({ ...row, ...rotated.columns })).to.deep.equal([rotated.secret]);
  });

  it('refuses to load without PARTNER_SECRETS_KEYS in production', () => {
    expect(() =>
      loadPartnerKeyring({
        NODE_ENV: 'production',
        DB_URL: 'sqlite::memory:',
        PARTNER_SECRETS_KEYS: undefined,
        PARTNER_SECRETS_KEY_FILE: undefined,
      }),
    ).to.throw('PARTNER_SECRETS_KEYS is required in production');
  });
});
