import { expect } from 'chai';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { status, type Metadata } from '@grpc/grpc-js';
import {
  ApiScope,
  apiKeyPrincipal,
  callerMetadata,
  dropTestDatabase,
  grpcClient,
  newId,
  openDataSource,
  rejection,
  systemPrincipal,
  testDbUrl,
  testEnv,
  unary,
} from '@svc/kit';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { IdentityApp, identityConfig, identityData } from '../src';
import { firstFreeSlug, slugBaseOf } from '../src/domain/org-slugs';

describe('identity org slugs', () => {
  describe('slugBaseOf', () => {
    it('folds a name to lower-case ASCII words joined by dashes', () => {
      expect(slugBaseOf('  Café Nördic & Co.  ')).to.equal('cafe-nordic-co');
      expect(slugBaseOf('ACME')).to.equal('acme');
      expect(slugBaseOf('日本')).to.equal('org');
      expect(slugBaseOf('x'.repeat(200))).to.have.length(55);
    });

    it('suffixes a taken slug with the first free number', () => {
      expect(firstFreeSlug('acme', new Set())).to.equal('acme');
      expect(firstFreeSlug('acme', new Set(['acme', 'acme-2']))).to.equal('acme-3');
    });
  });

  describe('IdentityService.GetOrgBySlug and the slug of new orgs', () => {
    let app: IdentityApp;
    let client: IdentityServiceClient;
    let system: Metadata;

    before(async () => {
      app = new IdentityApp(identityConfig(testEnv('identity')));
      await app.start();
      client = grpcClient(IdentityServiceClient, `127.0.0.1:${app.grpcPort}`);
      system = await callerMetadata(systemPrincipal(), 'identity');
    });

    after(async () => {
      client.close();
      await app.stop();
      await dropTestDatabase(app.config.DB_URL);
    });

    const newOrg = (name: string) =>
      app.createOrg({ name, owner: { email: `o-${Math.random().toString(36).slice(2)}@example.com`, name: 'O' } });

    it('gives each new org a slug from its name, suffixed when taken, and answers the org of a slug', async () => {
      const first = await newOrg('Slug Shop');
      const second = await newOrg('Slug shop!');
      expect(first.org.slug).to.equal('slug-shop');
      expect(second.org.slug).to.equal('slug-shop-2');
      const found = await unary(client.getOrgBySlug.bind(client), { slug: 'slug-shop-2' }, system);
      expect(found).to.include({ _id: second.org.id, name: 'Slug shop!', slug: 'slug-shop-2' });
    });

    it('answers NOT_FOUND for a slug no org has', async () => {
      const error = await rejection(unary(client.getOrgBySlug.bind(client), { slug: 'nobody-here' }, system));
      expect(error.code).to.equal(status.NOT_FOUND);
    });

    it('refuses a caller that is not a service', async () => {
      const key = await callerMetadata(apiKeyPrincipal(newId(), [ApiScope.TEAM_READ]), 'identity');
      const error = await rejection(unary(client.getOrgBySlug.bind(client), { slug: 'slug-shop' }, key));
      expect(error.code).to.equal(status.PERMISSION_DENIED);
    });
  });

  describe('the OrgSlugBackfill migration', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-slugs-'));
    const url = testDbUrl('identity_slugs', path.join(dir, 'identity.sqlite'));

    after(async () => {
      await dropTestDatabase(url);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('gives the orgs stored before it slugs from their names, oldest first, suffixed when taken', async () => {
      const family = url.startsWith('sqlite:') ? 'sqlite' : 'mysql';
      const all = identityData.migrations[family];
      const before = all.findIndex((migration) => migration.name.startsWith('OrgSlugBackfill'));
      expect(before).to.be.greaterThan(0);
      const old = await openDataSource(
        { ...identityData, url, migrations: { ...identityData.migrations, [family]: all.slice(0, before) } },
        { migrate: true },
      );
      const insert = 'INSERT INTO orgs (id, name, kind, parent_org_id, created_at) VALUES (?, ?, ?, NULL, ?)';
      await old.query(insert, ['000000000000000000000002', 'Acme', 'STANDARD', '2026-01-02 00:00:00.000']);
      await old.query(insert, ['000000000000000000000001', 'ACME', 'STANDARD', '2026-01-01 00:00:00.000']);
      await old.query(insert, ['000000000000000000000003', 'Zeta Ltd', 'STANDARD', '2026-01-03 00:00:00.000']);
      await old.destroy();
      const migrated = await openDataSource({ ...identityData, url }, { migrate: true });
      try {
        const rows = (await migrated.query('SELECT id, slug FROM orgs ORDER BY id')) as { id: string; slug: string }[];
        expect(rows.map((row) => row.slug)).to.deep.equal(['acme', 'acme-2', 'zeta-ltd']);
      } finally {
        await migrated.destroy();
      }
    });
  });
});
