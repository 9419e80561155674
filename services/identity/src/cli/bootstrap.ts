import { parseArgs } from 'node:util';
import { OrgKind } from '@svc/proto/common/v1';
import { loadConfig, openDataSource } from '@svc/kit';
import { identityConfigSchema } from '../config';
import { identityData } from '../data';
import { createOrgWithOwner } from '../domain/orgs';
import { Passwords } from '../domain/passwords';

const USAGE = `Creates the first org of a production install and its owner, and prints the owner's one-time password.

  DB_URL=mysql://… npm run bootstrap -- --org "Acme" --email owner@acme.com [--name "Olive Owner"] [--kind STANDARD|TECH_PROVIDER]

In Kubernetes: kubectl exec deploy/identity -- node dist/src/cli/bootstrap.js --org … --email …`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      org: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      kind: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || !values.org || !values.email) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const kind = values.kind === 'TECH_PROVIDER' ? OrgKind.TECH_PROVIDER : OrgKind.STANDARD;
  // The database and bcrypt only: the CLI calls no service, so it needs no keys.
  const config = loadConfig(identityConfigSchema.pick({ DB_URL: true, BCRYPT_COST: true }));
  const dataSource = await openDataSource({ ...identityData, url: config.DB_URL }, { migrate: true });
  try {
    const created = await createOrgWithOwner(dataSource, new Passwords(config.BCRYPT_COST), {
      name: values.org,
      kind,
      owner: { email: values.email, name: values.name ?? values.email },
    });
    console.log(`org      ${created.org.name} (${created.org.id}, ${created.org.kind})`);
    console.log(`owner    ${created.owner.email}`);
    console.log(
      `password ${created.oneTimePassword ?? ''}   (shown once; log in with it and mint API keys from the dashboard)`,
    );
    return 0;
  } finally {
    await dataSource.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
