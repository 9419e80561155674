import { eventually, newId } from '@svc/kit';
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

  /** Posts with a fresh x-request-id and returns the response with the history row it wrote. */
  async postLogged(connectionId: string, body: string, headers: Record<string, string>) {
    const requestId = `req-${newId()}`;
    const response = await postWebhook(this.harness, connectionId, body, { ...headers, 'x-request-id': requestId });
    const row = (await this.history(connectionId)).find((r) => r.requestId === requestId);
    if (!row) throw new Error(`no history row for ${requestId}`);
    return { response, row };
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

/** Runs an operation with the session and returns its data; GraphQL errors throw (with the whole body). */
export async function graphqlData<T>(
  stack: HttpStack,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const response = await stack.graphql<T>(query, variables, token);
  if (!response.body.data || response.body.errors) throw new Error(JSON.stringify(response.body));
  return response.body.data;
}

/** A run as `flowRuns` shows it. */
export interface FlowRunView {
  _id: string;
  status: string;
  requestId: string | null;
  chatId: string | null;
  contactId: string | null;
}

/** Every run of the flow (all pages of `flowRuns`, newest first). */
export async function allFlowRuns(stack: HttpStack, token: string, flowId: string): Promise<FlowRunView[]> {
  const runs: FlowRunView[] = [];
  let cursor: string | null = null;
  for (;;) {
    const data: {
      flowRuns: { data: FlowRunView[]; nextCursor: string | null; hasNext: boolean };
    } = await graphqlData(
      stack,
      token,
      'query($f: String!, $c: String) { flowRuns(flowId: $f, input: { limit: 100, cursor: $c }) { data { _id status requestId chatId contactId } nextCursor hasNext } }',
      { f: flowId, c: cursor },
    );
    runs.push(...data.flowRuns.data);
    if (!data.flowRuns.hasNext) return runs;
    cursor = data.flowRuns.nextCursor;
  }
}

const UNFINISHED_RUN = ['QUEUED', 'RUNNING'];

/**
 * The flow's runs once everything dispatched up to the accepted request `lastRequestId` has been consumed: one
 * connection's `webhook.received` events are relayed and consumed in order (keyed by the connection), so once that
 * request's run exists, a run any earlier request started (or wrongly started twice) exists too. With `finished`,
 * also waits until no run is QUEUED or RUNNING (their messages are written).
 */
export async function settledFlowRuns(
  stack: HttpStack,
  token: string,
  flowId: string,
  lastRequestId: string,
  options: { finished?: boolean; deadlineMs?: number } = {},
): Promise<FlowRunView[]> {
  return eventually(
    async () => {
      const runs = await allFlowRuns(stack, token, flowId);
      if (!runs.some((run) => run.requestId === lastRequestId)) return undefined;
      if (options.finished && runs.some((run) => UNFINISHED_RUN.includes(run.status))) return undefined;
      return runs;
    },
    options.deadlineMs ?? 60_000,
    `the run of ${lastRequestId}${options.finished ? ' and every earlier run to finish' : ''}`,
  );
}

/** A history row with every field `inboundConnectionHistory` shows. */
export interface HistoryRow {
  _id: string;
  connectionId: string;
  requestId: string | null;
  idempotencyKey: string | null;
  outcome: string;
  httpStatus: number;
  headers: Record<string, string>;
  contactId: string | null;
  flowIds: string[];
  replay: boolean;
  detail: string | null;
  createdAt: string;
}

export interface HistoryPage {
  data: HistoryRow[];
  nextCursor: string | null;
  previousCursor: string | null;
  hasNext: boolean;
  hasPrevious: boolean;
}

export const HISTORY_PAGE_QUERY =
  'query($id: String!, $f: InboundHistoryFilter, $p: PaginateMessagesInput) { inboundConnectionHistory(id: $id, filter: $f, input: $p) { data { _id connectionId requestId idempotencyKey outcome httpStatus headers contactId flowIds replay detail createdAt } nextCursor previousCursor hasNext hasPrevious } }';

/** One page of a connection's history, as the dashboard asks for it. */
export async function historyPage(
  stack: HttpStack,
  token: string,
  connectionId: string,
  page: { limit?: number; cursor?: string | null; isBefore?: boolean; outcome?: string } = {},
): Promise<HistoryPage> {
  const { outcome, ...input } = page;
  const data = await graphqlData<{ inboundConnectionHistory: HistoryPage }>(stack, token, HISTORY_PAGE_QUERY, {
    id: connectionId,
    f: outcome ? { outcome } : null,
    p: { limit: 30, ...input },
  });
  return data.inboundConnectionHistory;
}

/**
 * A contact created from `input` (ContactApiInput: phone, identities, ...) owning a chat opened as a channel would,
 * once contacts knows about the chat.
 */
export async function contactWithChatFrom(
  fixtures: WebhookFixtures,
  input: Record<string, unknown>,
): Promise<{ contactId: string; chatId: string }> {
  const data = await graphqlData<{ createContactApi: { id: string } }>(
    fixtures.harness,
    fixtures.org.sessionToken,
    'mutation($input: ContactApiInput!) { createContactApi(input: $input) { id } }',
    { input: { name: 'Webhook Customer', ...input } },
  );
  const contactId = data.createContactApi.id;
  const chatId = await fixtures.org.openChat({ _id: contactId });
  await fixtures.waitForChatOwnership(contactId, chatId);
  return { contactId, chatId };
}
