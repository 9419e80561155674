import { randomBytes } from 'node:crypto';
import {
  ApiScope,
  MemberRole,
  apiKeyPrincipal,
  callerMetadata,
  dropTestDatabase,
  grpcClient,
  testEnv,
  unary,
} from '@svc/kit';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { IdentityApp } from './app';
import { identityConfig } from './config';

/** An org in a real identity service, whose team is changed through identity's own gRPC API. */
export interface IdentityTestOrg {
  id: string;
  ownerId: string;
  addMember(): Promise<string>;
  removeMember(memberId: string): Promise<void>;
}

const unique = () => randomBytes(6).toString('hex');

/**
 * A real identity service for other services' tests (the project tests against the real thing where it runs): its
 * own test database, no HTTP port, and the test process's keys (kit testEnv), so it trusts the SYSTEM principals the
 * service under test signs, as in a deployment.
 */
export class IdentityForTests {
  private client: IdentityServiceClient | undefined;

  readonly app: IdentityApp;

  constructor() {
    this.app = new IdentityApp(identityConfig(testEnv('identity')), {
      serveHttp: false,
    });
  }

  get address(): string {
    return `127.0.0.1:${this.app.grpcPort}`;
  }

  async start(): Promise<void> {
    await this.app.start();
    this.client = grpcClient(IdentityServiceClient, this.address);
  }

  /** Stops identity (callers then see it unreachable); `dispose` also drops its database. */
  async stop(): Promise<void> {
    this.client?.close();
    this.client = undefined;
    await this.app.stop();
  }

  async dispose(): Promise<void> {
    await this.stop();
    await dropTestDatabase(this.app.config.DB_URL);
  }

  /** A new org with its owner; members are added and removed with a TEAM_MANAGE key of the org. */
  async newOrg(): Promise<IdentityTestOrg> {
    const created = await this.app.createOrg({
      name: 'Acme',
      owner: { email: `owner-${unique()}@example.com`, name: 'Olive Owner' },
    });
    const id = created.org.id;
    const team = callerMetadata(apiKeyPrincipal(id, [ApiScope.TEAM_MANAGE]), 'identity');
    const client = () => {
      if (!this.client) throw new Error('identity is stopped');
      return this.client;
    };
    return {
      id,
      ownerId: created.owner.id,
      async addMember() {
        const added = await unary(
          client().addMemberDirect.bind(client()),
          { email: `agent-${unique()}@example.com`, name: 'Ada Agent', role: MemberRole.AGENT },
          team,
        );
        if (!added.member) throw new Error('identity added no member');
        return added.member.id;
      },
      async removeMember(memberId) {
        await unary(client().removeMember.bind(client()), { memberId }, team);
      },
    };
  }
}
