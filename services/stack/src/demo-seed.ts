import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ALL_SCOPES,
  ApiScope,
  Conflict,
  anonymousPrincipal,
  grpcClient,
  newId,
  systemPrincipal,
  unary,
  type Principal,
} from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { seedDemoContent } from './demo-content';
import type { Stack } from './stack';

export interface DemoCredentials {
  SVC_URL: string;
  SVC_DEMO_EMAIL: string;
  SVC_DEMO_PASSWORD: string;
  SVC_DEMO_API_KEY: string;
  SVC_DEMO_CHAT_ID: string;
  /** The demo web integration's `<PUBLIC_KEY>` (the widget's `data-public-key`). */
  SVC_DEMO_WEB_PUBLIC_KEY: string;
  /** Its identity secret (signs visitor `jwt`s and `userHash`es): the API answers it only once, so it is kept here. */
  SVC_DEMO_WEB_IDENTITY_SECRET: string;
  /** The demo org's URL slug: its public help center is at `<SVC_URL>/help/<slug>`. */
  SVC_DEMO_ORG_SLUG: string;
}

const DEMO_SCOPES = ALL_SCOPES.filter((s) => s !== ApiScope.PARTNER_ADMIN);

export function demoEnvPath(dataDir: string): string {
  return path.join(dataDir, 'demo.env');
}

/** The credentials a start wrote to demo.env, when it is there and whole. */
export function readDemoEnv(file: string): DemoCredentials | undefined {
  if (!fs.existsSync(file)) return undefined;
  const values = Object.fromEntries(
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.match(/^([A-Z_]+)=(.*)$/))
      .filter((m): m is RegExpMatchArray => m !== null)
      .map((m) => [m[1], m[2]]),
  );
  return values.SVC_DEMO_EMAIL && values.SVC_DEMO_API_KEY ? (values as unknown as DemoCredentials) : undefined;
}

function writeDemoEnv(file: string, credentials: DemoCredentials): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    Object.entries(credentials)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );
}

/** The origins the demo widget may be embedded in: the stack's own URL and http://localhost:<port>. */
function demoOrigins(stack: Stack): string[] {
  const own = new URL(stack.url);
  const local = own.protocol === 'https:' || ['localhost', '127.0.0.1'].includes(own.hostname);
  return [...new Set([...(local ? [own.origin] : []), `http://localhost:${stack.port}`])];
}

/** A web integration for the demo org (decision 0075), created as the gateway would for `principal`. */
async function seedWebIntegration(stack: Stack, principal: Principal) {
  const channels = grpcClient(ChannelsServiceClient, `127.0.0.1:${stack.channels.grpcPort}`);
  try {
    return await unary(
      channels.createWebIntegration.bind(channels),
      { input: { name: 'Demo website', allowedOrigins: { origins: demoOrigins(stack) } } },
      stack.gatewaySigner.metadata(principal, 'channels'),
    );
  } finally {
    channels.close();
  }
}

/**
 * Seeds the demo org once (owner, an API key with every scope but PARTNER_ADMIN, a web integration, a contact and a
 * chat of that channel with a few messages, help articles and a news post) and writes its credentials to `<data dir>/demo.env`. Later starts reuse it: data survives restarts.
 */
export async function seedDemo(stack: Stack): Promise<DemoCredentials> {
  const file = demoEnvPath(stack.config.SVC_DATA_DIR);
  const identity = grpcClient(IdentityServiceClient, `127.0.0.1:${stack.identity.grpcPort}`);
  const inbox = grpcClient(InboxServiceClient, `127.0.0.1:${stack.inbox.grpcPort}`);
  const system = stack.signer.metadata(systemPrincipal(), 'identity');
  try {
    const existing = readDemoEnv(file);
    if (existing) {
      const keyPrincipal = await unary(
        identity.authenticate.bind(identity),
        { credential: existing.SVC_DEMO_API_KEY, actAsOrgId: '' },
        system,
      ).then(
        (principal) => principal,
        () => undefined,
      );
      if (keyPrincipal && existing.SVC_DEMO_WEB_PUBLIC_KEY && existing.SVC_DEMO_ORG_SLUG)
        return { ...existing, SVC_URL: stack.url };
      if (keyPrincipal) {
        // A demo seeded before web integrations or org slugs existed: add what it lacks.
        const web = existing.SVC_DEMO_WEB_PUBLIC_KEY ? undefined : await seedWebIntegration(stack, keyPrincipal);
        const org = await unary(
          identity.getOrg.bind(identity),
          {},
          stack.gatewaySigner.metadata(keyPrincipal, 'identity'),
        );
        const updated = {
          ...existing,
          SVC_URL: stack.url,
          SVC_DEMO_WEB_PUBLIC_KEY: web?.integration?.publicKey ?? existing.SVC_DEMO_WEB_PUBLIC_KEY,
          SVC_DEMO_WEB_IDENTITY_SECRET: web?.identitySecret ?? existing.SVC_DEMO_WEB_IDENTITY_SECRET,
          SVC_DEMO_ORG_SLUG: org.slug,
        };
        writeDemoEnv(file, updated);
        return updated;
      }
    }
    let email = 'demo@svc-inbox.local';
    let created;
    try {
      created = await stack.identity.createOrg({ name: 'Demo Org', owner: { email, name: 'Demo Owner' } });
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      email = `demo+${newId().slice(-6)}@svc-inbox.local`;
      created = await stack.identity.createOrg({ name: 'Demo Org', owner: { email, name: 'Demo Owner' } });
    }
    const password = created.oneTimePassword ?? '';
    const session = await unary(
      identity.login.bind(identity),
      { email, password },
      stack.gatewaySigner.metadata(anonymousPrincipal(), 'identity'),
    );
    const owner = await unary(
      identity.authenticate.bind(identity),
      { credential: session.token, actAsOrgId: '' },
      system,
    );
    const asOwner = (audience: string) => stack.gatewaySigner.metadata(owner, audience);
    const key = await unary(
      identity.mintOrgApiKey.bind(identity),
      { name: 'demo', scopes: DEMO_SCOPES },
      asOwner('identity'),
    );
    const web = await seedWebIntegration(stack, owner);
    await seedDemoContent(stack, owner);
    const asService = stack.signer.metadata(systemPrincipal(created.org.id), 'inbox');
    const chat = await unary(
      inbox.openChat.bind(inbox),
      {
        channelId: web.integration?.id ?? newId(),
        contact: { _id: newId(), name: 'Ada Lovelace', email: 'ada@example.com', phone: '+15550100100' },
      },
      asService,
    );
    await unary(
      inbox.receiveMessage.bind(inbox),
      { chatId: chat._id, text: 'Hi! My order #1042 has not arrived yet.', mediaIds: [] },
      asService,
    );
    await unary(
      inbox.sendMessage.bind(inbox),
      { chatId: chat._id, input: { text: 'Sorry to hear that, Ada. Let me check.', internal: false } },
      asOwner('inbox'),
    );
    await unary(
      inbox.sendMessage.bind(inbox),
      { chatId: chat._id, input: { text: 'Carrier says it is at the depot.', internal: true } },
      asOwner('inbox'),
    );
    await unary(inbox.receiveMessage.bind(inbox), { chatId: chat._id, text: 'Thanks!', mediaIds: [] }, asService);
    const credentials: DemoCredentials = {
      SVC_URL: stack.url,
      SVC_DEMO_EMAIL: email,
      SVC_DEMO_PASSWORD: password,
      SVC_DEMO_API_KEY: key.key ?? '',
      SVC_DEMO_CHAT_ID: chat._id,
      SVC_DEMO_WEB_PUBLIC_KEY: web.integration?.publicKey ?? '',
      SVC_DEMO_WEB_IDENTITY_SECRET: web.identitySecret,
      SVC_DEMO_ORG_SLUG: created.org.slug,
    };
    writeDemoEnv(file, credentials);
    return credentials;
  } finally {
    identity.close();
    inbox.close();
  }
}
