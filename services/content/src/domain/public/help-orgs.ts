import type { ServiceError } from '@grpc/grpc-js';
import {
  LookupCache,
  NotFound,
  domainErrorOf,
  systemPrincipal,
  unary,
  type Peer,
  type PrincipalSigner,
} from '@svc/kit';
import type { IdentityServiceClient } from '@svc/proto/identity/v1';

/** The org a public help-center URL names. */
export interface HelpOrg {
  id: string;
  name: string;
  slug: string;
}

/** Slugs are lower-case letters, digits and dashes (identity's org-slugs.ts); anything else names no org. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Which org a slug names, asked of identity as SYSTEM of the installation and reused for `ttlMs` (docs/decisions/0184):
 * every public page names its org, and slugs never change. Unknown slugs are asked again each time (not cached), but
 * a malformed one never reaches identity.
 */
export class HelpOrgs {
  private readonly cache: LookupCache<HelpOrg>;

  constructor(
    private readonly identity: Peer<IdentityServiceClient>,
    private readonly signer: () => PrincipalSigner,
    ttlMs: number,
  ) {
    this.cache = new LookupCache({ ttlMs, keep: () => true });
  }

  bySlug(slug: string): Promise<HelpOrg> {
    if (!SLUG.test(slug)) return Promise.reject(new NotFound('help center not found', { field: 'orgSlug' }));
    return this.cache.get(slug, async () => {
      const client = this.identity.get();
      try {
        const org = await unary(
          client.getOrgBySlug.bind(client),
          { slug },
          this.signer().metadata(systemPrincipal(), 'identity'),
        );
        return { id: org._id, name: org.name, slug: org.slug };
      } catch (error) {
        throw domainErrorOf(error as ServiceError);
      }
    });
  }
}
