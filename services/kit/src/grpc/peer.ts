import type { ChannelCredentials } from '@grpc/grpc-js';
import { grpcClient } from './client';
import { DEFAULT_CALL_POLICY, type GrpcCallPolicy } from './call-policy';

/**
 * A gRPC client of another service, created on first use. Co-located services (the embedded default) learn each
 * other's ephemeral ports only once they are listening, so the address is read lazily.
 */
export class Peer<C extends { close(): void }> {
  private client: C | undefined;

  constructor(
    private readonly Client: new (
      address: string,
      credentials: ChannelCredentials,
      options: Record<string, string>,
    ) => C,
    private readonly address: () => string,
    private readonly policy: GrpcCallPolicy = DEFAULT_CALL_POLICY,
  ) {}

  get(): C {
    if (!this.client) {
      const address = this.address();
      if (!address) throw new Error(`no address configured for ${this.Client.name}`);
      this.client = grpcClient(this.Client, address, this.policy);
    }
    return this.client;
  }

  close(): void {
    this.client?.close();
    this.client = undefined;
  }
}
