import { createServer, type Server } from 'node:http';
import type Router from '@koa/router';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ConfigError, type BaseConfig, type ConfigSource } from './config';
import type { EventBus } from './bus/bus';
import { createBus } from './bus/create-bus';
import { withoutBus } from './bus/bus-settings';
import { OutboxRelay } from './bus/outbox';
import { openDataSource, type DataSourceSpec } from './db/data-source';
import { GrpcServer } from './grpc/server';
import { opsApp, type ReadinessCheck } from './http/ops-app';
import { keepConnectionsAlive } from './http/keep-alive';
import { withRawRoutes, type RawRoute } from './http/raw-routes';
import { createLogger } from './logger';
import { metricsRegistry } from './metrics';
import { stopOnSignals } from './shutdown';
import { isIssuer } from './trust/policy';
import { PrincipalSigner, type Clock } from './trust/signer';
import { PrincipalVerifier } from './trust/verifier';

export interface ServiceAppDeps {
  /** A bus shared by co-located services (the embedded default); otherwise the app creates its own from config. */
  bus?: EventBus;
  logger?: Logger;
  /** false when the embedded stack serves health and metrics for every service on its one port. */
  serveHttp?: boolean;
  /** The time principal tokens are signed and checked at (tests move it). */
  clock?: Clock;
}

export interface ServiceDefinitionSpec {
  name: string;
  /** Fully qualified gRPC service names, reported by the health service. */
  grpcServices: string[];
  data: Omit<DataSourceSpec, 'url'>;
  /** Topics this service publishes (created at start on Kafka). */
  publishes: string[];
  /** Largest gRPC request accepted, when a service takes more than the default 8 MiB (media uploads). */
  grpcMaxReceiveBytes?: number;
  /** Field names the service's logger redacts besides the common ones (`createLogger`'s `secretKeys`). */
  secretLogKeys?: readonly string[];
}

/**
 * The chassis every domain service runs on: data source (+ migrations), event bus + outbox relay, a gRPC server with
 * health, and the ops HTTP app. Subclasses register their gRPC services; tests construct the same class.
 */
export abstract class ServiceApp<C extends BaseConfig = BaseConfig> {
  readonly logger: Logger;
  /** Checks the principal token of every call to this service (the audience is the service's name). */
  readonly verifier: PrincipalVerifier;
  private readonly ownSigner: PrincipalSigner | undefined;
  readonly grpc: GrpcServer;
  dataSource!: DataSource;
  bus!: EventBus;
  relay!: OutboxRelay;
  private ownsBus = false;
  private http: Server | undefined;
  private started = false;

  protected constructor(
    readonly spec: ServiceDefinitionSpec,
    readonly config: C,
    protected readonly deps: ServiceAppDeps = {},
  ) {
    this.logger = deps.logger ?? createLogger(spec.name, config.LOG_LEVEL, { secretKeys: spec.secretLogKeys });
    this.verifier = new PrincipalVerifier(spec.name, config.SVC_TRUST_JWKS, deps.clock);
    this.ownSigner = signerOf(spec.name, config, deps.clock);
    this.grpc = new GrpcServer(spec.grpcMaxReceiveBytes);
  }

  /** Signs the principal tokens this service sends as itself (services that call others: trust/policy.ts). */
  get signer(): PrincipalSigner {
    if (!this.ownSigner) throw new Error(`${this.spec.name} does not call other services`);
    return this.ownSigner;
  }

  /** Adds the service's gRPC implementations to `this.grpc`. */
  protected abstract register(): void;

  /** Public HTTP routes served next to the ops routes on HTTP_PORT (e.g. the inbound webhook endpoint). */
  protected httpRouters(): Router[] {
    return [];
  }

  /** Public hot-path routes served on node:http ahead of Koa (kit `RawRoute`), on HTTP_PORT. */
  protected rawRoutes(): RawRoute[] {
    return [];
  }

  /** The raw routes, for a process that serves them on its own port (the embedded stack). */
  get publicRawRoutes(): RawRoute[] {
    return this.rawRoutes();
  }

  /** Background work started after the service is serving (consumers, jobs). */
  protected async startWorkers(): Promise<void> {}
  protected async stopWorkers(): Promise<void> {}

  get grpcPort(): number {
    return this.grpc.port;
  }

  get httpPort(): number | undefined {
    const address = this.http?.address();
    return typeof address === 'object' && address ? address.port : undefined;
  }

  readinessChecks(): Record<string, ReadinessCheck> {
    return {
      [`${this.spec.name}.database`]: async () => {
        await this.dataSource.query('SELECT 1');
        return true;
      },
      [`${this.spec.name}.bus`]: () => this.bus.healthy(),
    };
  }

  protected get dataSourceSpec(): DataSourceSpec {
    return { ...this.spec.data, url: this.config.DB_URL, poolSize: this.config.DB_POOL_SIZE };
  }

  /** Applies this service's migrations and closes (the Kubernetes migration Job: `main.js migrate`). */
  async migrate(): Promise<void> {
    const dataSource = await openDataSource(this.dataSourceSpec, { migrate: true });
    await dataSource.destroy();
    this.logger.info(`${this.spec.name} migrations applied`);
  }

  async start(): Promise<void> {
    if (isIssuer(this.spec.name) && !this.ownSigner) {
      throw new ConfigError(
        `invalid configuration:\n  SVC_SIGNING_KEY: required: ${this.spec.name} signs the calls it makes`,
      );
    }
    await this.ownSigner?.ready();
    try {
      await this.startParts();
    } catch (error) {
      // A start that fails half-way (a broker refusing a topic, a port taken) must not leave a relay, consumers or
      // servers running in this process: the tests construct many apps in one process, and a leaked one keeps it alive.
      await this.stopParts().catch((stopError: unknown) =>
        this.logger.warn({ err: stopError }, `${this.spec.name}: cleaning up a failed start failed`),
      );
      throw error;
    }
    this.grpc.setServing(true, ['', ...this.spec.grpcServices]);
    this.started = true;
    this.logger.info(
      { grpcPort: this.grpcPort, httpPort: this.httpPort, bus: this.bus.kind },
      `${this.spec.name} started`,
    );
  }

  private async startParts(): Promise<void> {
    this.dataSource = await openDataSource(this.dataSourceSpec, { migrate: this.config.DB_MIGRATE !== 'skip' });
    this.ownsBus = !this.deps.bus;
    this.bus = this.deps.bus ?? createBus(this.config, this.logger, this.spec.publishes);
    if (this.ownsBus) await this.bus.start();
    this.relay = new OutboxRelay(this.dataSource, this.bus, this.logger, {
      topicPrefix: this.config.KAFKA_TOPIC_PREFIX,
    });
    this.relay.start();
    this.register();
    await this.grpc.listen(this.config.GRPC_HOST, this.config.GRPC_PORT);
    if (this.deps.serveHttp !== false) {
      const app = opsApp(this.readinessChecks(), metricsRegistry);
      for (const router of this.httpRouters()) app.use(router.routes()).use(router.allowedMethods());
      this.http = keepConnectionsAlive(
        createServer(withRawRoutes(this.rawRoutes(), app.callback(), this.logger)),
        this.config.HTTP_KEEP_ALIVE_MS,
      ).listen(this.config.HTTP_PORT);
      await new Promise<void>((resolve) => this.http?.once('listening', () => resolve()));
    }
    await this.startWorkers();
  }

  /** Graceful stop: not serving, drain in-flight calls, stop workers, relay what is committed, close. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.stopParts();
    this.logger.info(`${this.spec.name} stopped`);
  }

  /** Stops what `startParts` started, also when it stopped half-way (each part only if it exists). */
  private async stopParts(): Promise<void> {
    await this.grpc.stop(this.config.SHUTDOWN_GRACE_MS);
    await this.stopWorkers();
    const relay = this.relay as OutboxRelay | undefined;
    await relay?.stop();
    if (this.http) await new Promise<void>((resolve) => this.http?.close(() => resolve()));
    this.http = undefined;
    const bus = this.bus as EventBus | undefined;
    if (this.ownsBus) await bus?.stop();
    const dataSource = this.dataSource as DataSource | undefined;
    if (dataSource?.isInitialized) await dataSource.destroy();
  }
}

/** A service that calls others signs as itself (docs/decisions/0065); `start` refuses to serve without its key. */
function signerOf(name: string, config: BaseConfig, clock?: Clock): PrincipalSigner | undefined {
  if (!isIssuer(name) || !config.SVC_SIGNING_KEY) return undefined;
  return PrincipalSigner.fromSetting(name, config.SVC_SIGNING_KEY, config.SVC_SIGNING_KEY_ID, clock);
}

/**
 * The entry point of a deployable: `main.js` serves until SIGTERM; `main.js migrate` migrates and exits. `create`
 * reads its config from the environment given: the migration opens no bus, so it needs no KAFKA_BROKERS.
 */
export function runService(create: (env: ConfigSource) => ServiceApp, argv: string[] = process.argv.slice(2)): void {
  const run = async () => {
    const app = create(argv[0] === 'migrate' ? withoutBus(process.env) : process.env);
    if (argv[0] === 'migrate') return app.migrate();
    stopOnSignals(() => app.stop(), app.logger);
    return app.start();
  };
  run().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
