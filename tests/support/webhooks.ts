import { eventually } from '@svc/kit';
import type { GraphQLResponse } from './stack-harness';

/**
 * A stack reachable over HTTP: the in-process `StackHarness` of the e2e suites, or a stack in another process (the
 * benchmark's).
 */
export interface HttpStack {
  readonly url: string;
  graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse<T>>;
}

/** An org with its owner's dashboard session, able to open a chat as a channel would (`TestOrg` is one). */
export interface FixtureOrg {
  readonly sessionToken: string;
  openChat(contact?: { _id?: string; name?: string; email?: string; phone?: string }): Promise<string>;
}

export interface WebhookResponse {
  status: number;
  body: { requestId?: string; outcome?: string; flows?: { id: string; name: string }[]; message?: string };
  headers: Headers;
}

export async function postWebhook(
  harness: Pick<HttpStack, 'url'>,
  connectionId: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<WebhookResponse> {
  const response = await fetch(`${harness.url}/webhooks/in/${connectionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as WebhookResponse['body'],
    headers: response.headers,
  };
}

const CONNECTION_FIELDS =
  '_id name authMode secret hasSigningSecret identifierType identifierPath status urlPath captureOpenUntil payloadSchema { version fields { path type required } }';

export interface Connection {
  _id: string;
  secret: string | null;
  status: string;
  hasSigningSecret: boolean;
  captureOpenUntil: string | null;
  payloadSchema: { version: number; fields: { path: string; type: string; required: boolean }[] };
}

/** Dashboard helpers (member session) for connections, flows and contacts. */
export class WebhookFixtures {
  constructor(
    readonly harness: HttpStack,
    readonly org: FixtureOrg,
  ) {}

  private async call<T>(query: string, variables: Record<string, unknown>, token = this.org.sessionToken): Promise<T> {
    const response = await this.harness.graphql<T>(query, variables, token);
    if (!response.body.data || response.body.errors) throw new Error(JSON.stringify(response.body));
    return response.body.data;
  }

  async connection(input: Record<string, unknown>): Promise<Connection> {
    const data = await this.call<{ createInboundConnection: Connection }>(
      `mutation($input: CreateInboundConnectionInput!) { createInboundConnection(input: $input) { ${CONNECTION_FIELDS} } }`,
      { input: { name: 'Orders', identifierType: 'EMAIL', identifierPath: '$.customer.email', ...input } },
    );
    return data.createInboundConnection;
  }

  async connectionAction(action: string, id: string): Promise<Connection> {
    const data = await this.call<Record<string, Connection>>(
      `mutation($id: String!) { ${action}(id: $id) { ${CONNECTION_FIELDS} } }`,
      { id },
    );
    return data[action] as Connection;
  }

  async inject(id: string, payload: unknown): Promise<Connection> {
    const data = await this.call<{ injectInboundConnectionPayload: Connection }>(
      `mutation($id: String!, $p: JSON!) { injectInboundConnectionPayload(id: $id, payload: $p) { ${CONNECTION_FIELDS} } }`,
      { id, p: payload },
    );
    return data.injectInboundConnectionPayload;
  }

  async history(id: string, outcome?: string) {
    const data = await this.call<{
      inboundConnectionHistory: {
        data: {
          outcome: string;
          httpStatus: number;
          requestId: string | null;
          headers: Record<string, string>;
          replay: boolean;
          flowIds: string[];
        }[];
      };
    }>(
      'query($id: String!, $f: InboundHistoryFilter) { inboundConnectionHistory(id: $id, filter: $f, input: { limit: 100 }) { data { outcome httpStatus requestId headers replay flowIds } } }',
      { id, f: outcome ? { outcome } : null },
    );
    return data.inboundConnectionHistory.data;
  }

  /** A published flow bound to the connection whose one step sends `text` to the contact's latest chat. */
  async publishedFlow(connectionId: string, text = 'Order {{webhook.order.id}} for {{webhook.customer.email}}') {
    const created = await this.call<{ createFlow: { _id: string } }>(
      'mutation($input: CreateFlowInput!) { createFlow(input: $input) { _id } }',
      {
        input: {
          name: 'Order received',
          trigger: { type: 'WEBHOOK_RECEIVED', connectionId },
          steps: [{ type: 'SEND_MESSAGE', text }],
        },
      },
    );
    await this.call('mutation($id: String!) { publishFlow(flowId: $id) { _id status } }', {
      id: created.createFlow._id,
    });
    return created.createFlow._id;
  }

  /** A contact with the email, owning a chat (opened as a channel would). */
  async contactWithChat(email: string): Promise<{ contactId: string; chatId: string }> {
    const data = await this.call<{ createContactApi: { id: string } }>(
      'mutation($input: ContactApiInput!) { createContactApi(input: $input) { id } }',
      { input: { name: 'Webhook Customer', email } },
    );
    const contactId = data.createContactApi.id;
    const chatId = await this.org.openChat({ _id: contactId, email });
    await this.waitForChatOwnership(contactId, chatId);
    return { contactId, chatId };
  }

  /** Contacts learns which chats a contact owns from the inbox's `chat.opened` event: waits until it has. */
  async waitForChatOwnership(contactId: string, chatId: string): Promise<void> {
    await eventually(
      async () => {
        const contact = await this.call<{ contactApi: { identities: { type: string; value: string }[] } }>(
          'query($id: ID!) { contactApi(id: $id) { identities { type value } } }',
          { id: contactId },
        );
        return contact.contactApi.identities.some((i) => i.type === 'CHAT_ID' && i.value === chatId);
      },
      30_000,
      'the contact to own its chat',
    );
  }
}
