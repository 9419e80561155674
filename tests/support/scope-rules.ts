import { ALL_SCOPES, ApiScope, OrgKind } from '@svc/kit';
import type { OperationRule } from '@svc/gateway';

/** Helpers over operations.tsv's rows shared by the scope suites (tests/e2e/scope-matrix, tests/e2e/service-scopes). */

/** Every scope a key of an org of `kind` can hold but `scope` (PARTNER_ADMIN only on TECH_PROVIDER orgs). */
export function scopesBut(scope: string, kind = OrgKind.STANDARD): ApiScope[] {
  return ALL_SCOPES.filter((s) => s !== scope && (kind === OrgKind.TECH_PROVIDER || s !== ApiScope.PARTNER_ADMIN));
}

/** The row's scope, for rows that name one (not DASHBOARD_ONLY, SESSION or PUBLIC). */
export function scopeOf(rule: OperationRule | undefined): ApiScope | undefined {
  return rule?.requirement.kind === 'scope' ? (rule.requirement.scope as ApiScope) : undefined;
}

/** The org kind a row's operations are called on: TECH_PROVIDER for PARTNER_ADMIN rows. */
export function orgKindOf(rule: OperationRule | undefined): OrgKind {
  return rule?.techProviderOnly ? OrgKind.TECH_PROVIDER : OrgKind.STANDARD;
}

/** The argument value that makes the `also` column's scope apply, as an argument-values override. */
export function argumentScopeOverride(rule: OperationRule | undefined): Record<string, unknown> {
  const extra = rule?.argumentScope;
  return extra ? { [extra.path.join('.')]: extra.value } : {};
}
