import { expect } from 'chai';
import { Socket } from 'node:net';
import { OutboxEvent, ServiceApp, loadConfig, serviceConfigSchema, testEnv, type BaseConfig } from '../src';

/** A service whose background work fails to start, like a consumer whose topic the broker refuses. */
class FailingWorkersApp extends ServiceApp<BaseConfig> {
  constructor() {
    super(
      {
        name: 'kit-test',
        grpcServices: [],
        data: { entities: [OutboxEvent], migrations: { mysql: [], sqlite: [] } },
        publishes: [],
      },
      loadConfig(serviceConfigSchema, testEnv('kit-test', { DB_URL: 'sqlite::memory:', LOG_LEVEL: 'error' })),
    );
  }

  protected register(): void {}

  protected override async startWorkers(): Promise<void> {
    throw new Error('the broker does not host this topic-partition');
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

describe('kit ServiceApp: a start that fails half-way', () => {
  it('rejects and stops what it had started (database, relay, servers)', async () => {
    const app = new FailingWorkersApp();
    let refused: unknown;
    await app.start().catch((error: unknown) => (refused = error));
    expect(String(refused)).to.contain('does not host this topic-partition');
    expect(app.dataSource.isInitialized).to.equal(false);
    const httpPort = app.httpPort;
    expect(httpPort === undefined || !(await accepts(httpPort))).to.equal(true);
    expect(await accepts(app.grpcPort)).to.equal(false);
  });
});
