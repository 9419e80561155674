import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ALL_SCOPES,
  ApiScope,
  OrgKind,
  dropTestDatabase,
  grpcClient,
  newId,
  systemPrincipal,
  testRunId,
  unary,
} from '@svc/kit';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { Stack, stackConfig } from '@svc/stack';

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  body: {
    data?: T | null;
    errors?: { message: string; extensions?: { code?: string; scope?: string; field?: string } }[];
  };
}

/**
 * Boots the whole stack in-process, exactly as `npm start` does, and talks to it over HTTP; `stack` exposes the
 * services behind it for what no public operation does yet (internal gRPC, creating orgs, SQL reads). On the embedded
 * default it uses SQLite files in a temp dir and the in-process bus; with SVC_TEST_MYSQL_URL / SVC_TEST_KAFKA_BROKERS
 * set (npm run test:infra) every service gets a fresh MariaDB database and the bus is Kafka.
 */
/** The channels service's platform base URLs (services/channels/src/config.ts), pointed at `tests/fakes/` servers. */
export type PlatformUrls = Partial<
  Record<'CHAT_APP_A_API_URL' | 'CHAT_APP_B_API_URL' | 'CHAT_APP_C_API_URL' | 'SOCIAL_APP_D_API_URL', string>
>;

export interface StackHarnessOptions {
  /** Where channels calls each messaging platform: a fake's `url`. Unset kinds keep the real platform's default. */
  platformUrls?: PlatformUrls;
  /**
   * Where platforms deliver webhooks and the hosted connect returns (CHANNELS_PUBLIC_URL): by default the stack's
   * own URL once it listens, so a fake delivering to the registered webhook URL reaches `/channels/in/<id>` here.
   */
  channelsPublicUrl?: string;
  /** widget-api's erasure consumer joins its group, then waits for `stack.widget.consumeErasureRequests()` (Stack `holdWidgetErasureRequests`). */
  holdWidgetErasureRequests?: boolean;
}

export class StackHarness {
  /**
   * Runs before any stack of this process starts. The shared stack (tests/support/shared-stack.ts) stops itself here
   * when another one starts: two stacks of one run side by side would share Kafka consumer groups (one topic prefix
   * per run) and process-wide state.
   */
  static beforeStart: (starting: StackHarness) => Promise<void> = async () => undefined;

  stack!: Stack;
  private dataDir = '';

  /**
   * `serviceEnv`: settings of the co-located services for this suite (see `Stack`); `stackEnv`: the stack's own;
   * `options`: the channels service's platforms (fakes) and public URL.
   */
  constructor(
    private readonly serviceEnv: NodeJS.ProcessEnv = {},
    private readonly stackEnv: Record<string, string> = {},
    private readonly options: StackHarnessOptions = {},
  ) {}

  async start(): Promise<void> {
    await StackHarness.beforeStart(this);
    this.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-'));
    const mysqlTemplate = process.env.SVC_TEST_MYSQL_URL
      ? `${process.env.SVC_TEST_MYSQL_URL.replace(/^mysql:/, 'mariadb:').replace(/\/$/, '')}/svc_t_${testRunId}_e2e_${newId().slice(-6)}_{service}`
      : undefined;
    this.stack = new Stack(
      stackConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
        SVC_DATA_DIR: this.dataDir,
        ...(mysqlTemplate ? { SVC_DB_URL_TEMPLATE: mysqlTemplate } : {}),
        KAFKA_BROKERS: process.env.SVC_TEST_KAFKA_BROKERS ?? '',
        KAFKA_TOPIC_PREFIX: process.env.SVC_TEST_KAFKA_BROKERS ? `e2e${testRunId}.` : '',
        SVC_SEED_DEMO: 'false',
        BCRYPT_COST: '4',
        ...this.stackEnv,
      }),
      {
        ...this.serviceEnv,
        ...this.options.platformUrls,
        ...(this.options.channelsPublicUrl ? { CHANNELS_PUBLIC_URL: this.options.channelsPublicUrl } : {}),
      },
      { holdWidgetErasureRequests: this.options.holdWidgetErasureRequests },
    );
    await this.stack.start();
    // The stack names itself `localhost`; platforms (fakes) deliver to the address it listens on.
    if (!this.options.channelsPublicUrl) this.stack.channels.config.CHANNELS_PUBLIC_URL = this.url;
  }

  async stop(): Promise<void> {
    await this.stack.stop();
    // One database per service, independent of each other: dropped at once (docs/decisions/0210).
    await Promise.all(this.stack.apps.map((app) => dropTestDatabase(app.config.DB_URL)));
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  get url(): string {
    return `http://127.0.0.1:${this.stack.port}`;
  }

  async graphql<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
    token?: string,
    headers: Record<string, string> = {},
  ): Promise<GraphQLResponse<T>> {
    const response = await fetch(`${this.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as GraphQLResponse<T>['body'] };
  }

  /**
   * A GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec), as upload clients
   * send it: `files` maps a variable path (`variables.file`, `variables.files.0`) to the file put there.
   */
  async upload<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown>,
    files: Record<string, { bytes: Buffer; name: string; type?: string }>,
    token?: string,
  ): Promise<GraphQLResponse<T>> {
    const form = new FormData();
    form.append('operations', JSON.stringify({ query, variables }));
    const entries = Object.entries(files);
    form.append('map', JSON.stringify(Object.fromEntries(entries.map(([path], index) => [String(index), [path]]))));
    entries.forEach(([, file], index) =>
      form.append(
        String(index),
        new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }),
        file.name,
      ),
    );
    const response = await fetch(`${this.url}/graphql`, {
      method: 'POST',
      headers: token ? { authorization: `Bearer ${token}` } : {},
      body: form,
    });
    return { status: response.status, body: (await response.json()) as GraphQLResponse<T>['body'] };
  }

  /** A fresh org with its owner logged in (the same code path as the bootstrap CLI). */
  async newOrg(name = 'Acme', kind = OrgKind.STANDARD): Promise<TestOrg> {
    const email = `owner-${newId()}@example.com`;
    const created = await this.stack.identity.createOrg({ name, kind, owner: { email, name: 'Olive Owner' } });
    const login = await this.graphql<{ login: { token: string } }>(
      'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { token } }',
      { e: email, p: created.oneTimePassword },
    );
    const token = login.body.data?.login.token;
    if (!token) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
    return new TestOrg(this, created.org.id, email, created.oneTimePassword ?? '', token);
  }
}

export class TestOrg {
  constructor(
    readonly harness: StackHarness,
    readonly id: string,
    readonly ownerEmail: string,
    readonly ownerPassword: string,
    readonly sessionToken: string,
  ) {}

  async mintKey(scopes: ApiScope[] | string[], name = 'test'): Promise<{ id: string; key: string }> {
    const minted = await this.harness.graphql<{ mintOrgApiKey: { id: string; key: string } }>(
      'mutation($n: String!, $s: [ApiScope!]!) { mintOrgApiKey(name: $n, scopes: $s) { id key } }',
      { n: name, s: scopes },
      this.sessionToken,
    );
    const result = minted.body.data?.mintOrgApiKey;
    if (!result) throw new Error(`mint failed: ${JSON.stringify(minted.body)}`);
    return result;
  }

  /** Adds an agent to the org through `addOrgMemberDirect` (as its owner) and returns the new member's id. */
  async addMember(name = 'Ann Agent'): Promise<string> {
    const added = await this.harness.graphql<{ addOrgMemberDirect: { member: { id: string } } }>(
      'mutation($i: AddOrgMemberInput!) { addOrgMemberDirect(input: $i) { member { id } } }',
      { i: { email: `agent-${newId()}@example.com`, name, role: 'AGENT' } },
      this.sessionToken,
    );
    const id = added.body.data?.addOrgMemberDirect.member.id;
    if (!id) throw new Error(`addOrgMemberDirect failed: ${JSON.stringify(added.body)}`);
    return id;
  }

  /** Removes a member of the org through `removeOrgMember` (as its owner). */
  async removeMember(memberId: string): Promise<void> {
    const removed = await this.harness.graphql<{ removeOrgMember: boolean }>(
      'mutation($m: String!) { removeOrgMember(memberId: $m) }',
      { m: memberId },
      this.sessionToken,
    );
    if (removed.body.data?.removeOrgMember !== true)
      throw new Error(`removeOrgMember failed: ${JSON.stringify(removed.body)}`);
  }

  /**
   * A chat with a contact, as a channel would open it. There is no public operation that opens a chat (contacts
   * start them through channels and the widget), so tests call the inbox the way those services do.
   */
  async openChat(
    contact: { _id?: string; name?: string; email?: string; phone?: string } = {},
    channelId = newId(),
  ): Promise<string> {
    const inbox = grpcClient(InboxServiceClient, `127.0.0.1:${this.harness.stack.inbox.grpcPort}`);
    try {
      const chat = await unary(
        inbox.openChat.bind(inbox),
        {
          channelId,
          contact: { _id: newId(), name: 'Ada Lovelace', email: 'ada@example.com', phone: '+15550100100', ...contact },
        },
        this.harness.stack.signer.metadata(systemPrincipal(this.id), 'inbox'),
      );
      return chat._id;
    } finally {
      inbox.close();
    }
  }
}

export const ALL_SCOPES_BUT_PARTNER = ALL_SCOPES.filter((s) => s !== ApiScope.PARTNER_ADMIN);
