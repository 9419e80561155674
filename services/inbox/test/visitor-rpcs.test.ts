import { expect } from 'chai';
import { status, type Client, type Metadata, type ServiceDefinition, type ServiceError } from '@grpc/grpc-js';
import { InboxServiceService } from '@svc/proto/inbox/v1';
import { CollectionServiceService } from '@svc/proto/inbox/v1/collections';
import { LabelServiceService } from '@svc/proto/inbox/v1/labels';
import { MediaServiceService } from '@svc/proto/inbox/v1/media';
import { SearchServiceService } from '@svc/proto/inbox/v1/search';
import { VisitorServiceService } from '@svc/proto/inbox/v1/visitor';
import { VisitorStack } from './visitor-stack';

/**
 * The RPCs a VISITOR principal may call, as services/inbox/README.md and docs/decisions/0081 list them. Every other
 * method of every service the inbox serves must refuse it; the walk below reads the methods from the service
 * definitions, so an RPC added later is refused unless someone opens it here and in the docs.
 */
const OPEN_TO_VISITORS: Record<string, readonly string[]> = {
  InboxService: ['receiveMessage', 'updateDeliveryStatus'],
  MediaService: ['createMedia'],
  VisitorService: ['getVisitorChat', 'listVisitorMessages', 'listVisitorEvents', 'markVisitorRead', 'setVisitorTyping'],
};

const SERVICES: Record<string, ServiceDefinition> = {
  InboxService: InboxServiceService,
  LabelService: LabelServiceService,
  CollectionService: CollectionServiceService,
  MediaService: MediaServiceService,
  SearchService: SearchServiceService,
  VisitorService: VisitorServiceService,
};

type UnaryMethod = (request: unknown, metadata: Metadata, callback: (error: ServiceError | null) => void) => void;

describe('inbox: which RPCs a VISITOR principal reaches (docs/decisions/0081)', () => {
  const stack = new VisitorStack();
  before(() => stack.start());
  after(() => stack.stop());

  it('refuses it every method but the documented ones, which it reaches for its own chat', async () => {
    const { chat, visitor } = await stack.visitorChat();
    const outcome: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const [serviceName, definition] of Object.entries(SERVICES)) {
      const client: Client = stack.clientOf(definition);
      try {
        for (const [method, spec] of Object.entries(definition)) {
          // The method's default request, with the visitor's own chat wherever the request names a chat.
          const request = spec.requestDeserialize(Buffer.alloc(0)) as Record<string, unknown>;
          if ('chatId' in request) request.chatId = chat._id;
          const call = (client as unknown as Record<string, UnaryMethod>)[method];
          if (!call) throw new Error(`no client method ${method}`);
          const metadata = await stack.as(visitor);
          const code = await new Promise<number>((resolve) =>
            call.call(client, request, metadata, (error) => resolve(error?.code ?? status.OK)),
          );
          const name = `${serviceName}.${method}`;
          outcome[name] =
            code === status.PERMISSION_DENIED
              ? 'refused'
              : code === status.UNAUTHENTICATED
                ? 'unauthenticated'
                : 'reached';
          expected[name] = OPEN_TO_VISITORS[serviceName]?.includes(method) ? 'reached' : 'refused';
        }
      } finally {
        client.close();
      }
    }
    expect(outcome).to.deep.equal(expected);
    expect(Object.values(expected).filter((v) => v === 'reached')).to.have.length(8);
    expect(Object.keys(expected).length).to.be.greaterThan(60);
  });
});
