import { Server, ServerCredentials, status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { ChannelType, ChannelsServiceService } from '@svc/proto/channels/v1';
import { jwksSchema } from './trust/jwks';
import { PrincipalVerifier } from './trust/verifier';
import { testTrustKeys } from './testing';

type Callback = (error: Partial<ServiceError> | null, value?: unknown) => void;

/**
 * A stand-in for the channels service in tests of the services that ask it (contacts, webhook-ingress): it answers
 * only `FindChannels`, from `channels` (id → org), for the org of the signed SYSTEM principal, as channels does (each
 * found channel a WEB one); with `down` set it answers UNAVAILABLE. `asked` counts the calls.
 */
export class FakeChannels {
  readonly channels = new Map<string, string>();
  down = false;
  asked = 0;
  private readonly server = new Server();
  private readonly verifier = new PrincipalVerifier('channels', jwksSchema.parse(testTrustKeys().jwks));
  private port = 0;

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server.addService(ChannelsServiceService, {
      findChannels: (call: { request: { channelIds: string[] }; metadata: Metadata }, callback: Callback) => {
        this.asked += 1;
        if (this.down) return callback({ code: status.UNAVAILABLE, details: 'channels is down' });
        void this.verifier.fromMetadata(call.metadata).then(
          ({ orgId }) => {
            const found = call.request.channelIds.filter((id) => this.channels.get(id) === orgId);
            const channels = found.map((id) => ({ id, type: ChannelType.WEB, deleted: false }));
            callback(null, { channelIds: found, channels });
          },
          (error: Error) => callback({ code: status.UNAUTHENTICATED, details: error.message }),
        );
      },
    });
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
  }

  stop(): void {
    this.server.forceShutdown();
  }
}
