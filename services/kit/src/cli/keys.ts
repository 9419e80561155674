#!/usr/bin/env node
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { jwksSchema } from '../trust/jwks';
import { generateTrustKeys } from '../trust/keys';
import { ISSUERS, isIssuer } from '../trust/policy';

const USAGE = `usage: keys:generate [--out <dir>] [--suffix <kid suffix>] [--keep-jwks <jwks.json>] [issuer ...]

Generates an Ed25519 signing key per issuer (default: every deployable that signs: ${ISSUERS.filter((i) => i !== 'stack').join(', ')})
with key id <issuer>.<suffix> (default suffix: now, e.g. 20261124T120000Z), and the JWKS of their public keys. Writes
<dir>/<issuer>.jwk.json (private: SVC_SIGNING_KEY of that deployable only) and <dir>/jwks.json (SVC_TRUST_JWKS of every
service), <dir> defaulting to .keys/<suffix>. --keep-jwks adds the keys of an existing JWKS (a rotation: the old keys
keep verifying until you remove them). docs/deploy.md "Service keys" shows the kubectl commands.`;

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      suffix: { type: 'string' },
      'keep-jwks': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return console.log(USAGE);
  const issuers = positionals.length ? positionals : ISSUERS.filter((issuer) => issuer !== 'stack');
  const unknown = issuers.filter((issuer) => !isIssuer(issuer));
  if (unknown.length) throw new Error(`unknown issuer(s): ${unknown.join(', ')}\n${USAGE}`);
  const suffix = values.suffix ?? new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  const keys = generateTrustKeys(issuers, suffix);
  const fresh = jwksSchema.parse(keys.jwks).keys;
  const kept = values['keep-jwks'] ? jwksSchema.parse(fs.readFileSync(values['keep-jwks'], 'utf8')).keys : [];
  const dir = values.out ?? path.join('.keys', suffix);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [issuer, jwk] of Object.entries(keys.signing)) {
    fs.writeFileSync(path.join(dir, `${issuer}.jwk.json`), JSON.stringify(jwk), { mode: 0o600 });
  }
  const jwks = { keys: [...kept.filter((old) => !fresh.some((key) => key.kid === old.kid)), ...fresh] };
  fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify(jwks));
  console.log(
    `wrote ${issuers.map((issuer) => `${issuer}.jwk.json`).join(', ')} and jwks.json (${jwks.keys.length} keys) to ${dir}`,
  );
}

try {
  main();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
