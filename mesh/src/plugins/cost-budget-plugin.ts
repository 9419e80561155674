import { GraphQLError } from 'graphql';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { PrincipalKind, spendFromBucket, type BucketState, type Principal } from '@svc/kit';
import { rootFields } from '../auth/authorize';
import type { GatewayContext } from '../context';

/*
 * A token bucket per principal for the reads the spec calls expensive. Written by hand: the Envelop ecosystem's
 * `@envelop/rate-limiter` (checked with `npm view`: 10.x) is not installed here and may not be, and it counts calls in
 * fixed windows per field rather than spending a per-operation cost from one bucket per key, which is what a budget
 * needs (docs/decisions/0033-gateway-cost-budget.md).
 */

export interface CostBudgetOptions {
  /** Tokens a principal starts with and can save up to. */
  capacity: number;
  /** Tokens added back per second. */
  refillPerSecond: number;
  /** Cost of each root field; fields not listed cost nothing and never touch the bucket. */
  costs: Record<string, number>;
  /** Buckets kept in memory; the least recently used goes first (a forgotten bucket restarts full). */
  maxPrincipals?: number;
  /** Milliseconds clock, for tests. */
  now?: () => number;
}

/** The budget of docs/decisions/0033-gateway-cost-budget.md. */
export const DEFAULT_COSTS: Record<string, number> = {
  searchConversations: 5,
  apiSearchMessages: 5,
  apiSearchChatMessages: 2,
  searchChats: 2,
  inboxCounts: 3,
  chatCollectionCounts: 3,
};
export const DEFAULT_CAPACITY = 600;
export const DEFAULT_REFILL_PER_SECOND = 10;

/** The budget of a gateway: its size and refill (GATEWAY_COST_BUDGET, GATEWAY_COST_REFILL_PER_SECOND), the costs. */
export function costBudget(
  limits: { capacity: number; refillPerSecond: number } = {
    capacity: DEFAULT_CAPACITY,
    refillPerSecond: DEFAULT_REFILL_PER_SECOND,
  },
): CostBudgetOptions {
  return { ...limits, costs: DEFAULT_COSTS };
}

/** Whose bucket a request spends from: the key, or the dashboard session (not the member: each tab of theirs counts). */
export function budgetHolder(principal: Principal): string | undefined {
  if (principal.kind === PrincipalKind.API_KEY) return `key:${principal.keyId}`;
  if (principal.kind === PrincipalKind.MEMBER_SESSION) return `session:${principal.sessionId || principal.memberId}`;
  return undefined;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, BucketState>();

  constructor(private readonly options: CostBudgetOptions) {}

  /** Spends `cost` when the bucket holds it; otherwise spends nothing and says how long until it will. */
  take(holder: string, cost: number): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const previous = this.buckets.get(holder);
    this.buckets.delete(holder);
    const spent = spendFromBucket(previous, cost, (this.options.now ?? Date.now)(), this.options);
    this.remember(holder, spent.bucket);
    return spent.ok ? { ok: true } : { ok: false, retryAfterSeconds: spent.retryAfterSeconds };
  }

  private remember(holder: string, bucket: BucketState): void {
    this.buckets.set(holder, bucket);
    const max = this.options.maxPrincipals ?? 100_000;
    while (this.buckets.size > max) {
      const oldest = this.buckets.keys().next().value;
      if (oldest === undefined) break;
      this.buckets.delete(oldest);
    }
  }
}

/**
 * Charges each operation the sum of its root fields' costs before execution, after authorization (the auth plugin
 * stops refused operations first, so they cost nothing). Over budget: RATE_LIMITED with `retryAfterSeconds`, HTTP 429
 * and a Retry-After header. A request costing more than the whole budget could never pass: BAD_USER_INPUT.
 */
export function useCostBudget(options: CostBudgetOptions): GatewayPlugin {
  const buckets = new TokenBuckets(options);
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const principal = (args.contextValue as GatewayContext).principal;
      const holder = principal && budgetHolder(principal);
      if (!holder) return;
      const fields = rootFields(args.document, args.operationName)?.fields ?? [];
      const cost = fields.reduce((sum, field) => sum + (options.costs[field.name.value] ?? 0), 0);
      if (cost <= 0) return;
      if (cost > options.capacity) {
        setResultAndStopExecution({
          errors: [
            new GraphQLError(
              `this request costs ${cost}, more than the whole budget of ${options.capacity}; split it`,
              {
                extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
              },
            ),
          ],
        });
        return;
      }
      const taken = buckets.take(holder, cost);
      if (taken.ok) return;
      setResultAndStopExecution({
        errors: [
          new GraphQLError(`cost budget exhausted; retry in ${taken.retryAfterSeconds} s`, {
            extensions: {
              code: 'RATE_LIMITED',
              retryAfterSeconds: taken.retryAfterSeconds,
              http: { status: 429, headers: { 'Retry-After': String(taken.retryAfterSeconds) } },
            },
          }),
        ],
      });
    },
  };
}
