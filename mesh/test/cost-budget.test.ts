import { expect } from 'chai';
import { ConfigError, PrincipalKind, loadConfig, type Principal } from '@svc/kit';
import { TokenBuckets, budgetHolder, DEFAULT_CAPACITY } from '../src/plugins/cost-budget-plugin';
import { gatewayTuningSchema } from '../src/config';

describe('gateway.costBudget', () => {
  it('spends from a full bucket, refuses without spending, and refills with time', () => {
    let now = 0;
    const buckets = new TokenBuckets({ capacity: 10, refillPerSecond: 2, costs: {}, now: () => now });
    expect(buckets.take('a', 5)).to.deep.equal({ ok: true });
    expect(buckets.take('a', 5)).to.deep.equal({ ok: true });
    expect(buckets.take('a', 5)).to.deep.equal({ ok: false, retryAfterSeconds: 3 });
    expect(buckets.take('b', 5), 'each holder has its own bucket').to.deep.equal({ ok: true });
    now = 2_000;
    expect(buckets.take('a', 5), '4 tokens after 2 s').to.deep.equal({ ok: false, retryAfterSeconds: 1 });
    now = 2_500;
    expect(buckets.take('a', 5)).to.deep.equal({ ok: true });
    now = 1_000_000;
    expect(buckets.take('a', 10), 'never more than the capacity').to.deep.equal({ ok: true });
    expect(buckets.take('a', 1).ok).to.equal(false);
  });

  it('forgets the least recently used holder beyond maxPrincipals (it restarts full)', () => {
    const buckets = new TokenBuckets({
      capacity: 1,
      refillPerSecond: 0.001,
      costs: {},
      maxPrincipals: 2,
      now: () => 0,
    });
    buckets.take('a', 1);
    buckets.take('b', 1);
    buckets.take('c', 1);
    expect(buckets.take('a', 1).ok).to.equal(true);
    expect(buckets.take('c', 1).ok).to.equal(false);
  });

  it('budgets per key and per session, never for SYSTEM', () => {
    const base: Principal = {
      kind: PrincipalKind.API_KEY,
      orgId: 'o',
      keyId: 'k1',
      memberId: '',
      sessionId: '',
      scopes: [],
    } as unknown as Principal;
    expect(budgetHolder(base)).to.equal('key:k1');
    expect(budgetHolder({ ...base, kind: PrincipalKind.MEMBER_SESSION, sessionId: 's1' })).to.equal('session:s1');
    expect(budgetHolder({ ...base, kind: PrincipalKind.SYSTEM })).to.equal(undefined);
  });

  it('reads its numbers from the environment through the config, refusing nonsense by name', () => {
    expect(loadConfig(gatewayTuningSchema, {}).GATEWAY_COST_BUDGET).to.equal(DEFAULT_CAPACITY);
    expect(loadConfig(gatewayTuningSchema, { GATEWAY_COST_BUDGET: '7' }).GATEWAY_COST_BUDGET).to.equal(7);
    for (const bad of ['-1', 'abc', ''])
      expect(() => loadConfig(gatewayTuningSchema, { GATEWAY_COST_REFILL_PER_SECOND: bad })).to.throw(
        ConfigError,
        /GATEWAY_COST_REFILL_PER_SECOND/,
      );
  });
});
