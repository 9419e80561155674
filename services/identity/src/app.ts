import { ServiceApp, type ServiceAppDeps } from '@svc/kit';
import { IdentityServiceService } from '@svc/proto/identity/v1';
import type { IdentityConfig } from './config';
import { identityData } from './data';
import { ApiKeys, KEYS_TOPIC } from './domain/api-keys';
import { Authentication } from './domain/authentication';
import { LoginThrottle } from './domain/login-throttle';
import { createOrgWithOwner, type CreatedOrg, type NewOrg } from './domain/orgs';
import { Passwords } from './domain/passwords';
import { MEMBERS_TOPIC, Team } from './domain/team';
import { identityService } from './grpc/identity-handlers';

export class IdentityApp extends ServiceApp<IdentityConfig> {
  readonly passwords: Passwords;

  constructor(config: IdentityConfig, deps: ServiceAppDeps = {}) {
    super(
      {
        name: 'identity',
        grpcServices: ['svc.identity.v1.IdentityService'],
        data: identityData,
        publishes: [KEYS_TOPIC, MEMBERS_TOPIC],
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
  }

  /** Used by the bootstrap CLI and the demo seed. */
  createOrg(input: NewOrg): Promise<CreatedOrg> {
    return createOrgWithOwner(this.dataSource, this.passwords, input);
  }
}
