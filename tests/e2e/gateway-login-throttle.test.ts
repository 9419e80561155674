import { expect } from 'chai';
import { newId } from '@svc/kit';
import { StackHarness } from '../support/stack-harness';

const LOGIN = 'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { token } }';

interface LoginAnswer {
  status: number;
  retryAfterHeader: string | null;
  code?: string;
  retryAfterSeconds?: number;
}

/** Login throttle through the gateway (docs/decisions/0049), with small limits so the suite stays fast. */
describe('login throttle through the gateway', function () {
  const harness = new StackHarness({ LOGIN_FAILURES_PER_EMAIL: '3', LOGIN_FAILURES_PER_ADDRESS: '8' });

  before(async function () {
    this.timeout(120_000);
    await harness.start();
  });

  after(async () => harness.stop());

  async function login(email: string, password: string, headers: Record<string, string> = {}): Promise<LoginAnswer> {
    const response = await fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: LOGIN, variables: { e: email, p: password } }),
    });
    const body = (await response.json()) as {
      errors?: { extensions?: { code?: string; retryAfterSeconds?: number } }[];
    };
    return {
      status: response.status,
      retryAfterHeader: response.headers.get('retry-after'),
      code: body.errors?.[0]?.extensions?.code,
      retryAfterSeconds: body.errors?.[0]?.extensions?.retryAfterSeconds,
    };
  }

  it('answers RATE_LIMITED (429, retryAfterSeconds, Retry-After) after 3 failures for one email', async () => {
    const org = await harness.newOrg();
    for (let i = 0; i < 3; i += 1)
      expect((await login(org.ownerEmail, 'wrong-password-123')).code).to.equal('UNAUTHENTICATED');
    const refused = await login(org.ownerEmail, org.ownerPassword);
    expect(refused.code).to.equal('RATE_LIMITED');
    expect(refused.status).to.equal(429);
    expect(refused.retryAfterSeconds).to.be.a('number').and.to.be.greaterThan(0);
    expect(refused.retryAfterHeader).to.equal(String(refused.retryAfterSeconds));
  });

  it("counts failures per client address, and a client's own X-Forwarded-For does not change it", async () => {
    const answers: (string | undefined)[] = [];
    for (let i = 0; i < 10; i += 1) {
      const forged = { 'x-forwarded-for': `198.51.100.${i}` };
      answers.push((await login(`nobody-${newId()}@example.com`, 'wrong-password-123', forged)).code);
    }
    expect(answers, 'at most 8 failures from one address (3 were spent above)').to.include('RATE_LIMITED');
    expect(answers.slice(answers.indexOf('RATE_LIMITED'))).to.satisfy((codes: string[]) =>
      codes.every((code) => code === 'RATE_LIMITED'),
    );
  });
});
