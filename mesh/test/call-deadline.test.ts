import { expect } from 'chai';
import { SUBGRAPHS } from '../src/subgraphs';
import { fakeServices, gatewayOn, post } from './support/fake-services';

const POLICY = { deadlineMs: 200, retryAttempts: 1, uploadDeadlineMs: 200 };

async function firstError(url: string, query: string): Promise<{ message: string; code?: string; body: string }> {
  const body = await post(url, query);
  const [error] = body.errors ?? [];
  return {
    message: error?.message ?? '',
    code: error?.extensions?.code as string | undefined,
    body: JSON.stringify(body),
  };
}

describe('gateway: a service past its deadline or unreachable', function () {
  this.timeout(60_000);
  let services: Awaited<ReturnType<typeof fakeServices>>;
  let silent: Awaited<ReturnType<typeof gatewayOn>>;
  let unreachable: Awaited<ReturnType<typeof gatewayOn>>;

  before(async () => {
    services = await fakeServices();
    const everyService = Object.fromEntries(SUBGRAPHS.map(({ app }) => [app, services.address]));
    silent = await gatewayOn(everyService, POLICY);
    // Port 1 on loopback: nothing listens, so the call fails to connect (UNAVAILABLE) and its details name the address.
    unreachable = await gatewayOn({ ...everyService, inbox: '127.0.0.1:1' }, POLICY);
  });

  after(async () => {
    await silent.stop();
    await unreachable.stop();
    services.stop();
  });

  it('answers DEADLINE_EXCEEDED, with a message saying the outcome is unknown and nothing internal', async () => {
    const error = await firstError(silent.url, '{ labels { hasNext } }');
    expect(error.code, error.body).to.equal('DEADLINE_EXCEEDED');
    expect(error.message)
      .to.match(/did not answer in time/)
      .and.not.match(/127\.0\.0\.1|remote_addr/);
  });

  it('answers UNAVAILABLE for a service it cannot reach, without the address or the transport error', async () => {
    const error = await firstError(unreachable.url, '{ labels { hasNext } }');
    expect(error.code, error.body).to.equal('UNAVAILABLE');
    expect(error.message)
      .to.match(/unavailable/i)
      .and.not.match(/127\.0\.0\.1|ECONNREFUSED|connect/);
  });
});
