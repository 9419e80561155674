import { ORG_ERASURE_TOPIC, ServiceApp, type ServiceAppDeps, type Subscription } from '@svc/kit';
import { ClientOrgServiceService } from '@svc/proto/identity/v1/client_orgs';
import { IdentityServiceService } from '@svc/proto/identity/v1';
import type { IdentityConfig } from './config';
import { identityData } from './data';
import { ApiKeys, KEYS_TOPIC } from './domain/api-keys';
import { Authentication } from './domain/authentication';
import { ClientOrgs } from './domain/client-orgs/client-orgs';
import { subscribeOrgErasureReceipts } from './domain/client-orgs/receipt-consumer';
import { LoginThrottle } from './domain/login-throttle';
import { createOrgWithOwner, type CreatedOrg, type NewOrg } from './domain/orgs';
import { Passwords } from './domain/passwords';
import { MEMBERS_TOPIC, Team } from './domain/team';
import { CLIENT_ORG_GRPC_SERVICE, clientOrgService } from './grpc/client-org-handlers';
import { identityService } from './grpc/identity-handlers';

export class IdentityApp extends ServiceApp<IdentityConfig> {
  readonly passwords: Passwords;
  private clientOrgs: ClientOrgs | undefined;
  private orgErasureReceipts: Subscription | undefined;

  constructor(config: IdentityConfig, deps: ServiceAppDeps = {}) {
    super(
      {
        name: 'identity',
        grpcServices: ['svc.identity.v1.IdentityService', CLIENT_ORG_GRPC_SERVICE],
        data: identityData,
        publishes: [KEYS_TOPIC, MEMBERS_TOPIC, ORG_ERASURE_TOPIC],
      },
      config,
      deps,
    );
    this.passwords = new Passwords(config.BCRYPT_COST);
  }

  protected register(): void {
    const domain = {
      dataSource: this.dataSource,
      authentication: new Authentication(
        this.dataSource,
        this.passwords,
        new LoginThrottle(this.dataSource, {
          failuresPerEmail: this.config.LOGIN_FAILURES_PER_EMAIL,
          failuresPerAddress: this.config.LOGIN_FAILURES_PER_ADDRESS,
          windowSeconds: this.config.LOGIN_FAILURE_WINDOW_SECONDS,
        }),
      ),
      apiKeys: new ApiKeys(this.dataSource),
      team: new Team(this.dataSource, this.passwords, () => this.relay),
    };
    this.grpc.add(
      IdentityServiceService,
      identityService(domain, { verifier: this.verifier, logger: this.logger }),
      'svc.identity.v1.IdentityService',
    );
    this.clientOrgs = new ClientOrgs(this.dataSource, this.passwords, () => this.relay);
    this.grpc.add(
      ClientOrgServiceService,
      clientOrgService(this.clientOrgs, { verifier: this.verifier, logger: this.logger }),
      CLIENT_ORG_GRPC_SERVICE,
    );
  }

  protected override async startWorkers(): Promise<void> {
    if (!this.clientOrgs) return;
    this.orgErasureReceipts = await subscribeOrgErasureReceipts(
      this.bus,
      this.clientOrgs,
      this.config.KAFKA_TOPIC_PREFIX,
      this.logger,
    );
  }

  protected override async stopWorkers(): Promise<void> {
    await this.orgErasureReceipts?.stop();
  }

  /** Used by the bootstrap CLI and the demo seed. */
  createOrg(input: NewOrg): Promise<CreatedOrg> {
    return createOrgWithOwner(this.dataSource, this.passwords, input);
  }
}
