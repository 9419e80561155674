import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { ALL_SCOPES, OrgKind, eventually, newId } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { ChannelSimulator, dataOf } from './inbox-fixtures';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * The partner fan-out end to end (docs/partner-webhooks.md "Deliveries and retries"): a provider registers a webhook
 * through GraphQL, acts in its client org with `X-Svc-Org`, and its receiver (a real HTTP server) gets the client org's
 * `message.created`, verified by the standardwebhooks package's own verifier. The stack allows http and loopback
 * webhook URLs (PARTNER_WEBHOOK_INSECURE_URLS, tests only).
 *
 * Its own stack, so not the shared one (tests/support/shared-stack.ts): its name sorts it before the partner files that
 * share a stack (mocha runs files in name order), so it does not split their stack in two (docs/decisions/0280).
 */
describe('partner fan-out end to end: a client org’s message reaches the provider’s webhook', () => {
  const harness = new StackHarness({ PARTNER_WEBHOOK_INSECURE_URLS: 'true' });
  const received: Received[] = [];
  let receiver: Server;
  let provider: TestOrg;
  let key: string;
  let clientOrgId: string;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    provider = await harness.newOrg('Provider', OrgKind.TECH_PROVIDER);
    key = (await provider.mintKey([...ALL_SCOPES])).key;
    const client = await harness.stack.identity.createOrg({
      name: 'Client',
      kind: OrgKind.STANDARD,
      parentOrgId: provider.id,
      owner: { email: `client-${newId()}@example.com`, name: 'Clara Client' },
    });
    clientOrgId = client.org.id;
  });

  after(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await harness.stop();
  });

  it('delivers message.created signed per Standard Webhooks; an internal note is not sent', async () => {
    const port = (receiver.address() as AddressInfo).port;
    const registered = dataOf(
      await harness.graphql<{ registerPartnerWebhook: { secret: string; webhook: { id: string } } }>(
        'mutation($i: RegisterPartnerWebhookInput!) { registerPartnerWebhook(input: $i) { secret webhook { id } } }',
        { i: { url: `http://127.0.0.1:${port}/partner`, events: ['message.created'] } },
        key,
      ),
    ).registerPartnerWebhook;
    expect(registered.secret).to.match(/^whsec_/);

    const chat = await new ChannelSimulator(harness, { id: clientOrgId } as TestOrg).openChat();
    const send = (text: string, internal = false) =>
      harness.graphql<{ sendMessage: { _id: string } }>(
        'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id } }',
        { c: chat._id, i: { text, ...(internal ? { internal: true } : {}) } },
        key,
        { 'X-Svc-Org': clientOrgId },
      );
    const note = dataOf(await send('note: not for the provider', true)).sendMessage;
    const sent = dataOf(await send('hello from the provider')).sendMessage;

    const delivery = await eventually(async () => received[0], 30_000, 'the delivery');
    const body = new Webhook(registered.secret).verify(delivery.body, delivery.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(body.type).to.equal('message.created');
    expect(body.data).to.include({
      clientOrgId,
      messageId: sent._id,
      chatId: chat._id,
      text: 'hello from the provider',
    });
    expect(delivery.headers['webhook-id']).to.match(/^msg_[0-9a-f]{24}$/);

    const log = await eventually(
      async () => {
        const page = dataOf(
          await harness.graphql<{
            partnerWebhookDeliveries: { data: { status: string; attempts: { statusCode: number }[] }[] };
          }>(
            'query($w: ID!) { partnerWebhookDeliveries(webhookId: $w) { data { status attempts { statusCode } } } }',
            { w: registered.webhook.id },
            key,
          ),
        ).partnerWebhookDeliveries;
        return page.data[0]?.status === 'DELIVERED' && page;
      },
      10_000,
      'the delivery logged as DELIVERED',
    );
    expect(log.data.map((d) => [d.status, d.attempts.map((a) => a.statusCode)])).to.deep.equal([['DELIVERED', [204]]]);
    expect(received.map((r) => JSON.parse(r.body).data.messageId)).to.not.include(note._id);
    expect(received).to.have.length(1);
  });
});
