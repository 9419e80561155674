import type { ConnectedChannel, HandshakeAnswer, InboundRequest, Verification } from '../adapter';
import type { AdapterOptions } from '../registry';
import { GraphClient } from './client';
import { hubHandshake } from './handshake';
import { verifyHubSignature } from './signature';

/**
 * What the Graph API-shaped adapters share: the client on the kind's base URL, webhooks signed with the app secret
 * (`X-Hub-Signature-256`), and the `hub.*` GET handshake answered with the channel's verify token.
 */
export abstract class GraphPlatformAdapter {
  readonly graph: GraphClient;

  constructor(options: AdapterOptions) {
    this.graph = new GraphClient(options);
  }

  verify(channel: ConnectedChannel, request: InboundRequest): Verification {
    return verifyHubSignature(channel.credentials.appSecret ?? '', request);
  }

  handshake(channel: ConnectedChannel, request: InboundRequest): HandshakeAnswer {
    return hubHandshake(channel.webhookSecret, request);
  }
}
