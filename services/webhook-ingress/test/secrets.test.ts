import { expect } from 'chai';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import { ConfigError, dropTestDatabase, newId, openDataSource, testDbUrl, testEnv } from '@svc/kit';
import { WebhookIngressApp, ingressConfig } from '../src';
import { ConnectionRow } from '../src/entities';
import { migrations as mysqlMigrations } from '../src/migrations/mysql';
import { migrations as sqliteMigrations } from '../src/migrations/sqlite';
import { EMBEDDED_KEY_FILE, SIGNING_SECRETS_NAMING, loadKeyring } from '../src/secrets/key-source';
import { SealedSecretError, SecretKeyring, keyIdOf, newKeyEntry, parseKeys } from '@svc/kit';
import { SigningSecrets, resealSigningSecrets, signingSecretsByKey } from '../src/secrets/signing-secrets';
import { connectionRow } from './connection-row';

const key = (id: string) => ({ id, key: randomBytes(32) });
const owner = { orgId: newId(), id: newId() };

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('WebhookIngress signing secrets at rest', () => {
  describe('SecretKeyring', () => {
    it('returns the plaintext for what it sealed, stored as v1:<keyId>:<iv>:<ciphertext+tag> without the secret', () => {
      const keyring = new SecretKeyring([key('k1')]);
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      const sealed = keyring.seal(secret, owner);
      expect(sealed).to.match(/^v1:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
      expect(sealed).not.to.include(secret);
      expect(keyring.open(sealed, owner)).to.equal(secret);
      expect(keyring.seal(secret, owner)).not.to.equal(sealed); // a fresh IV every time
    });

    it('refuses a value moved to another connection or org (associated data)', () => {
      const keyring = new SecretKeyring([key('k1')]);
      const sealed = keyring.seal('s3cret-signing', owner);
      for (const other of [
        { ...owner, id: newId() },
        { ...owner, orgId: newId() },
      ]) {
        const error = thrown(() => keyring.open(sealed, other));
        expect(error).to.be.instanceOf(SealedSecretError);
        expect(error.message).to.include('does not authenticate');
      }
    });

    it('refuses a tampered value', () => {
      const keyring = new SecretKeyring([key('k1')]);
      const [format, id, iv, body] = keyring.seal('s3cret-signing', owner).split(':') as [
        string,
        string,
        string,
        string,
      ];
      const flipped = Buffer.from(body, 'base64url');
      flipped[0] = (flipped[0] ?? 0) ^ 1;
      expect(() => keyring.open([format, id, iv, flipped.toString('base64url')].join(':'), owner)).to.throw(
        SealedSecretError,
      );
    });

    it('names the unknown key id and the configured ones, never the key material', () => {
      const old = key('old');
      const sealed = new SecretKeyring([old]).seal('s3cret-signing', owner);
      const error = thrown(() =>
        new SecretKeyring([key('new'), key('other')], SIGNING_SECRETS_NAMING).open(sealed, owner),
      );
      expect(error).to.be.instanceOf(SealedSecretError);
      expect(error.message).to.include('key "old"');
      expect(error.message).to.include('WEBHOOK_SECRETS_KEYS (configured: new, other)');
      expect(error.message).not.to.include(old.key.toString('base64'));
    });

    it('seals with the first key and opens with any configured one (rotation)', () => {
      const [a, b] = [key('a'), key('b')];
      const underA = new SecretKeyring([a]).seal('s3cret-signing', owner);
      const rotated = new SecretKeyring([b, a]);
      expect(rotated.open(underA, owner)).to.equal('s3cret-signing');
      expect(rotated.isStale(underA)).to.equal(true);
      const underB = rotated.seal('s3cret-signing', owner);
      expect(keyIdOf(underB)).to.equal('b');
      expect(rotated.isStale(underB)).to.equal(false);
    });
  });

  describe('parseKeys', () => {
    it('reads comma-separated <keyId>:<base64 32 bytes> entries in order', () => {
      const keys = parseKeys(`${newKeyEntry('k2')}, ${newKeyEntry('k1')}`);
      expect(keys.map((k) => k.id)).to.deep.equal(['k2', 'k1']);
      expect(keys.every((k) => k.key.length === 32)).to.equal(true);
    });

    it('refuses short keys, bad ids and duplicate ids, naming the entry but not its material', () => {
      const short = randomBytes(16).toString('base64');
      expect(() => parseKeys(`k1:${short}`)).to.throw(/key "k1": must be the base64 of exactly 32 random bytes/);
      expect(thrown(() => parseKeys(`k1:${short}`)).message).not.to.include(short);
      expect(() => parseKeys(`bad id:${randomBytes(32).toString('base64')}`)).to.throw(/entry 1/);
      expect(() => parseKeys(`${newKeyEntry('k1')},${newKeyEntry('k1')}`)).to.throw(/"k1" appears twice/);
      expect(() => parseKeys(' , ')).to.throw(/at least one/);
    });
  });

  describe('configuration', () => {
    const production = { ...testEnv('webhook_ingress'), NODE_ENV: 'production' };

    it('refuses to start in production without WEBHOOK_SECRETS_KEYS, naming the variable', () => {
      const error = thrown(() => ingressConfig(production));
      expect(error).to.be.instanceOf(ConfigError);
      expect(error.message).to.include('WEBHOOK_SECRETS_KEYS: required in production');
    });

    it('accepts production with keys, and the migration Job without them', () => {
      expect(ingressConfig({ ...production, WEBHOOK_SECRETS_KEYS: newKeyEntry('k1') }).WEBHOOK_SECRETS_KEYS).to.match(
        /^k1:/,
      );
      expect(ingressConfig(production, { migrating: true }).NODE_ENV).to.equal('production');
    });

    it('refuses a malformed WEBHOOK_SECRETS_KEYS anywhere', () => {
      expect(() => ingressConfig({ ...testEnv('webhook_ingress'), WEBHOOK_SECRETS_KEYS: 'k1:short' })).to.throw(
        ConfigError,
        /WEBHOOK_SECRETS_KEYS: key "k1"/,
      );
    });

    it('generates a development key once, next to the SQLite file, readable by the owner only', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingress-keys-'));
      try {
        const config = ingressConfig({
          ...testEnv('webhook_ingress'),
          NODE_ENV: 'development',
          DB_URL: `sqlite:${path.join(dir, 'webhook-ingress.sqlite')}`,
        });
        const first = loadKeyring(config);
        const file = path.join(dir, EMBEDDED_KEY_FILE);
        expect(first.source).to.equal(file);
        expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
        const sealed = first.keyring.seal('s3cret-signing', owner);
        expect(loadKeyring(config).keyring.open(sealed, owner)).to.equal('s3cret-signing');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('SigningSecrets.reveal', () => {
    it('opens a sealed value once and serves it from memory until the value changes', () => {
      const keyring = new SecretKeyring([key('k1')]);
      const secrets = new SigningSecrets(keyring);
      const row = { id: owner.id, orgId: owner.orgId, legacySigningSecret: null };
      const open = keyring.open.bind(keyring);
      let opened = 0;
      keyring.open = (sealed, who) => {
        opened += 1;
        return open(sealed, who);
      };
      const first = secrets.seal('first-secret', { orgId: row.orgId, id: row.id });
      expect(secrets.reveal({ ...row, signingSecretSealed: first })).to.equal('first-secret');
      expect(secrets.reveal({ ...row, signingSecretSealed: first })).to.equal('first-secret');
      expect(opened).to.equal(1);
      const second = secrets.seal('second-secret', { orgId: row.orgId, id: row.id });
      expect(secrets.reveal({ ...row, signingSecretSealed: second })).to.equal('second-secret');
      expect(opened).to.equal(2);
      // A row written before sealing existed (until start-up seals it) verifies with its plain-text secret.
      expect(secrets.reveal({ ...row, signingSecretSealed: null, legacySigningSecret: 'legacy-secret' })).to.equal(
        'legacy-secret',
      );
    });
  });

  describe('upgrade from plain-text signing secrets', () => {
    let dir: string;
    let app: WebhookIngressApp | undefined;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingress-upgrade-'));
    });
    after(async () => {
      await app?.stop();
      if (app) await dropTestDatabase(app.config.DB_URL);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('seals them at start-up, and requests still verify with the secret', async () => {
      const url = testDbUrl('webhook_ingress_upgrade', path.join(dir, 'webhook-ingress.sqlite'));
      // The schema as it was before 0014 (the first migration only), with a plain-text secret in it.
      const before = await openDataSource(
        { entities: [], migrations: { sqlite: sqliteMigrations.slice(0, 1), mysql: mysqlMigrations.slice(0, 1) }, url },
        { migrate: true },
      );
      const id = newId();
      const secret = 'whsec_written_before_sealing';
      await before.query(
        'INSERT INTO inbound_connections (id, org_id, name, auth_mode, signing_secret, secret_version, identifier_type, ' +
          'identifier_path, status, schema_fields, schema_version, created_at, updated_at) ' +
          "VALUES (?, ?, 'old', 'PAYMENTS_PROVIDER', ?, 1, 'EMAIL', '$.email', 'ACTIVE', '[]', 0, ?, ?)",
        [id, newId(), secret, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'],
      );
      await before.destroy();

      app = new WebhookIngressApp(ingressConfig(testEnv('webhook_ingress', { DB_URL: url })));
      await app.start();
      const row = await app.dataSource.getRepository(ConnectionRow).findOneByOrFail({ id });
      expect(row.legacySigningSecret).to.equal(null);
      expect(row.signingSecretSealed).to.match(/^v1:/);
      expect(JSON.stringify(row)).not.to.include(secret);

      // `{}` yields no identifier: a verified request ends in 422 before any other service is asked; a bad one in 401.
      const post = async (signingSecret: string) => {
        const t = Math.floor(Date.now() / 1000);
        const signature = createHmac('sha256', signingSecret).update(`${t}.{}`).digest('hex');
        const response = await fetch(`http://127.0.0.1:${app?.httpPort}/webhooks/in/${id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${signature}` },
          body: '{}',
        });
        return response.status;
      };
      expect(await post(secret)).to.equal(422);
      expect(await post('whsec_some_other_secret')).to.equal(401);
    });
  });

  describe('resealSigningSecrets', () => {
    let app: WebhookIngressApp;
    before(async () => {
      app = new WebhookIngressApp(ingressConfig(testEnv('webhook_ingress')));
      await app.start();
    });
    after(async () => {
      await app.stop();
      await dropTestDatabase(app.config.DB_URL);
    });

    const connection = (fields: Partial<ConnectionRow>) => connectionRow({ name: 'legacy', ...fields });

    it('seals plaintext rows of earlier versions, then re-seals under a new first key (rotation)', async () => {
      const repository = app.dataSource.getRepository(ConnectionRow);
      const legacy = connection({ legacySigningSecret: 'whsec_plaintext_from_before' });
      await repository.insert(legacy);
      const [a, b] = [key('a'), key('b')];

      const first = await resealSigningSecrets(app.dataSource, new SecretKeyring([a]));
      expect(first.sealed).to.be.greaterThanOrEqual(1);
      const sealed = await repository.findOneByOrFail({ id: legacy.id });
      expect(sealed.legacySigningSecret).to.equal(null);
      expect(keyIdOf(sealed.signingSecretSealed ?? '')).to.equal('a');
      expect(JSON.stringify(sealed)).not.to.include('whsec_plaintext_from_before');

      const rotated = new SecretKeyring([b, a]);
      const second = await resealSigningSecrets(app.dataSource, rotated);
      expect(second.rewrapped).to.be.greaterThanOrEqual(1);
      const rewrapped = await repository.findOneByOrFail({ id: legacy.id });
      expect(keyIdOf(rewrapped.signingSecretSealed ?? '')).to.equal('b');
      const onlyB = new SecretKeyring([b]);
      expect(onlyB.open(rewrapped.signingSecretSealed ?? '', { orgId: legacy.orgId, id: legacy.id })).to.equal(
        'whsec_plaintext_from_before',
      );
      expect((await signingSecretsByKey(app.dataSource)).a ?? 0).to.equal(0);

      const again = await resealSigningSecrets(app.dataSource, rotated);
      expect([again.sealed, again.rewrapped]).to.deep.equal([0, 0]);
    });

    it('reports values no configured key opens and leaves them as they are', async () => {
      const repository = app.dataSource.getRepository(ConnectionRow);
      const row = connection({});
      row.signingSecretSealed = new SecretKeyring([key('lost')]).seal('s3cret-signing', {
        orgId: row.orgId,
        id: row.id,
      });
      await repository.insert(row);
      const report = await resealSigningSecrets(app.dataSource, new SecretKeyring([key('current')]));
      const unreadable = report.unreadable.find((u) => u.connectionId === row.id);
      expect(unreadable?.error).to.include('key "lost"');
      expect((await repository.findOneByOrFail({ id: row.id })).signingSecretSealed).to.equal(row.signingSecretSealed);
      await repository.delete({ id: row.id });
    });
  });
});
