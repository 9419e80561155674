import type { Subscription } from '../bus/bus';
import type { ServiceApp } from '../service-app';
import { subscribeErasure } from './consumer';
import type { ErasurePart } from './contract';
import { addErasureParticipant } from './participant-service';

/**
 * A service taking part in contact erasures (docs/erasure.md): its `PreviewErasure` service is added to the app's gRPC
 * server when constructed (from `register`), its erasure consumer runs between `start` and `stop` (the app's workers).
 * The app lists `ERASURE_PARTICIPANT_GRPC_SERVICE` in its `grpcServices` and `ERASURE_TOPIC` in its `publishes`.
 */
export class ErasureParticipant {
  private subscription: Subscription | undefined;

  constructor(
    private readonly app: ServiceApp,
    readonly part: ErasurePart,
  ) {
    addErasureParticipant(app.grpc, part, { verifier: app.verifier, logger: app.logger });
  }

  async start(): Promise<void> {
    const { app } = this;
    this.subscription ??= await subscribeErasure(
      app.bus,
      app.dataSource,
      app.relay,
      this.part,
      app.config.KAFKA_TOPIC_PREFIX,
      app.logger.child({ component: 'erasure' }),
    );
  }

  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.stop();
  }
}
