import type { Subscription } from '../bus/bus';
import type { ServiceApp } from '../service-app';
import { subscribeOrgErasure, type OrgErasurePart } from './org-erasure';

/**
 * A service taking part in org erasures (deprovisioning a client org, docs/erasure.md): its consumer of
 * `org.erase_requested` runs between `start` and `stop` (the app's workers). The app lists `ORG_ERASURE_TOPIC` in
 * its `publishes` (its confirmations go there).
 */
export class OrgErasureParticipant {
  private subscription: Subscription | undefined;

  constructor(
    private readonly app: ServiceApp,
    readonly part: OrgErasurePart,
  ) {}

  async start(): Promise<void> {
    const { app } = this;
    this.subscription ??= await subscribeOrgErasure(
      app.bus,
      app.dataSource,
      app.relay,
      this.part,
      app.config.KAFKA_TOPIC_PREFIX,
      app.logger.child({ component: 'org-erasure' }),
    );
  }

  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.stop();
  }
}
