import { randomBytes } from 'node:crypto';
import type { Metadata, ServiceError } from '@grpc/grpc-js';
import { DataSource } from 'typeorm';
import { type ApiScope, MemberRole, OrgKind, PrincipalKind, type Principal } from '@svc/proto/common/v1';
import { newId } from './ids';
import { parseDbUrl } from './db/data-source';
import { IN_PROCESS_BUS } from './bus/bus-settings';
import type { ConfigSource } from './config';
import { generateTrustKeys, importSigningKey, type TrustKeys } from './trust/keys';
import { ISSUERS, issuerFor } from './trust/policy';
import { PrincipalSigner, type Clock } from './trust/signer';

/**
 * Settings for tests that boot real services. On the embedded default they use in-memory SQLite and the in-process
 * bus; `npm run test:infra` sets SVC_TEST_MYSQL_URL / SVC_TEST_KAFKA_BROKERS and the same tests run on MariaDB
 * (a fresh database per service per run) and Kafka (a fresh topic prefix per run).
 */
export const testRunId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

export function testDbUrl(service: string, fileFallback?: string): string {
  const server = process.env.SVC_TEST_MYSQL_URL;
  if (!server) return fileFallback ? `sqlite:${fileFallback}` : 'sqlite::memory:';
  const url = new URL(server.replace(/^mysql:/, 'mariadb:'));
  url.pathname = `/svc_t_${testRunId}_${service.replace(/\W/g, '_')}_${randomBytes(2).toString('hex')}`;
  return url.toString();
}

let keys: TrustKeys | undefined;

/** One key per issuer for this test process, verified by every service testEnv configures. */
export function testTrustKeys(): TrustKeys {
  keys ??= generateTrustKeys(ISSUERS);
  return keys;
}

/**
 * SVC_TRUST_JWKS, and SVC_SIGNING_KEY when `service` signs its calls: the test process's keys. `service` may carry a
 * suffix (`webhook_ingress_find` signs as webhook-ingress).
 */
export function testTrustEnv(service: string): Record<string, string> {
  const { jwks, signing } = testTrustKeys();
  const name = service.replaceAll('_', '-');
  const issuer = ISSUERS.find((candidate) => name === candidate || name.startsWith(`${candidate}-`));
  const key = issuer && signing[issuer];
  return { SVC_TRUST_JWKS: jwks, ...(key ? { SVC_SIGNING_KEY: JSON.stringify(key) } : {}) };
}

const testSigners = new Map<string, PrincipalSigner>();

/** Signs as `issuer` with the test keys (`clock`: a signer of its own, at another time). */
export function testSigner(issuer: string, clock?: Clock): PrincipalSigner {
  const make = () => {
    const key = testTrustKeys().signing[issuer];
    if (!key) throw new Error(`no test key for ${issuer}`);
    return new PrincipalSigner(issuer, importSigningKey(issuer, JSON.stringify(key)), clock);
  };
  if (clock) return make();
  let signer = testSigners.get(issuer);
  if (!signer) testSigners.set(issuer, (signer = make()));
  return signer;
}

/**
 * Metadata carrying `principal` to the service `audience`, signed by an issuer allowed to present it there (the
 * gateway for members and keys, a calling service for SYSTEM of an org): for tests that call RPCs directly.
 */
export function callerMetadata(principal: Principal, audience: string): Promise<Metadata> {
  return testSigner(issuerFor(audience, principal)).metadata(principal, audience);
}

export function testEnv(service: string, overrides: Record<string, string> = {}): ConfigSource {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DB_URL: testDbUrl(service),
    // A service under test chooses the in-process bus as the embedded stack does, unless the infra run gives brokers.
    KAFKA_BROKERS: process.env.SVC_TEST_KAFKA_BROKERS || IN_PROCESS_BUS,
    KAFKA_TOPIC_PREFIX: process.env.SVC_TEST_KAFKA_BROKERS ? `t${testRunId}.` : '',
    EMBEDDED_BUS_FILE: ':memory:',
    // A record that keeps failing is dead-lettered after five attempts: within a test's patience.
    BUS_RETRY_BACKOFF_MS: '10',
    ...testTrustEnv(service),
    // The inbox's media link key (other services ignore it).
    MEDIA_URL_SECRET: randomBytes(32).toString('hex'),
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: '0',
    HTTP_PORT: '0',
    BCRYPT_COST: '4',
    SHUTDOWN_GRACE_MS: '2000',
    ...overrides,
  };
}

/** Drops a test database created on a MySQL-family server (no-op for SQLite). */
export async function dropTestDatabase(url: string): Promise<void> {
  const db = parseDbUrl(url);
  if (db.family !== 'mysql' || !db.url || !db.database.startsWith('svc_t_')) return;
  const server = new URL(db.url);
  server.pathname = '/';
  const admin = new DataSource({ type: 'mariadb', url: server.toString(), connectorPackage: 'mysql2' });
  await admin.initialize();
  try {
    await admin.query(`DROP DATABASE IF EXISTS \`${db.database}\``);
  } finally {
    await admin.destroy();
  }
}

/**
 * Waits until a statement of `dataSource`'s database matching `pattern` (SQL LIKE) is running, on the MySQL family:
 * a race test holding one transaction open sees the other wait on its locks. The process list, not
 * information_schema.INNODB_TRX (which lags behind on MariaDB); this poll's own statement is left out.
 */
export function statementRunning(dataSource: DataSource, pattern: string, deadlineMs = 15_000): Promise<true> {
  return eventually(
    async () => {
      const [row] = (await dataSource.query(
        "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO NOT LIKE '%PROCESSLIST%' AND INFO LIKE ?",
        [pattern],
      )) as { n: number | string }[];
      return Number(row?.n) > 0 || undefined;
    },
    deadlineMs,
    `a statement like ${pattern} running`,
  );
}

/** Polls until `check` holds or the deadline passes: tests wait on state, never sleep a fixed time. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  deadlineMs = 10_000,
  what = 'condition',
): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const result = await check();
    if (result !== undefined && result !== false) return result;
    if (Date.now() > until) throw new Error(`${what} not reached within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The gRPC error a call failed with; fails the test if the call succeeded. */
export async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}

/** A principal as the gateway would sign it, for service tests that call RPCs directly. */
export function principalFor(kind: PrincipalKind, orgId: string, scopes: ApiScope[] = []): Principal {
  return {
    kind,
    orgId,
    orgKind: OrgKind.STANDARD,
    keyId: kind === PrincipalKind.API_KEY ? newId() : '',
    memberId: kind === PrincipalKind.MEMBER_SESSION ? newId() : '',
    role: kind === PrincipalKind.MEMBER_SESSION ? MemberRole.OWNER : MemberRole.MEMBER_ROLE_UNSPECIFIED,
    scopes,
    sessionId: '',
    visitorContactId: '',
    visitorChannelId: '',
  };
}

export function apiKeyPrincipal(orgId: string, scopes: ApiScope[]): Principal {
  return principalFor(PrincipalKind.API_KEY, orgId, scopes);
}
