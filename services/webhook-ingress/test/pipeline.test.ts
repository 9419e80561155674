import { expect } from 'chai';
import bcrypt from 'bcrypt';
import { createLogger, dropTestDatabase, testEnv } from '@svc/kit';
import { InboundAuthMode, InboundOutcome } from '@svc/proto/webhooks/v1';
import { WebhookIngressApp, ingressConfig } from '../src';
import { SharedSecretVerifier } from '../src/auth/shared-secret';
import { GroupCommit } from '../src/domain/group-commit';
import { InboundPipeline } from '../src/domain/pipeline';
import { ConnectionRow, RequestLogRow } from '../src/entities';
import { SecretKeyring, newKeyEntry, parseKeys } from '@svc/kit';
import { SigningSecrets } from '../src/secrets/signing-secrets';
import { watchBcrypt } from './bcrypt-stub';
import { connectionRow } from './connection-row';

describe('WebhookIngress.InboundPipeline', () => {
  let app: WebhookIngressApp;
  before(async () => {
    app = new WebhookIngressApp(ingressConfig(testEnv('webhook_ingress')));
    await app.start();
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  async function sharedSecretConnection(secret: string): Promise<ConnectionRow> {
    const row = connectionRow({
      name: 'Busy',
      authMode: InboundAuthMode.SHARED_SECRET,
      secretHash: await bcrypt.hash(secret, 4),
    });
    await app.dataSource.manager.insert(ConnectionRow, row);
    return row;
  }

  describe('when Shared Secret verification is busy', () => {
    let bcryptWatch: ReturnType<typeof watchBcrypt> | undefined;
    afterEach(() => bcryptWatch?.restore());

    it('answers a retryable 500 ERROR with Retry-After, never 401, and the sender’s retry passes', async () => {
      const secret = 'the-right-secret';
      const connection = await sharedSecretConnection(secret);
      // One bcrypt slot, no line: a comparison held in the slot leaves no room for the right secret.
      const verifier = new SharedSecretVerifier(1, 0);
      const logger = createLogger('test', 'silent');
      const pipeline = new InboundPipeline(
        app.dataSource,
        new GroupCommit(app.dataSource, 10, () => undefined, logger),
        verifier,
        new SigningSecrets(new SecretKeyring(parseKeys(newKeyEntry()))),
        { lookupContact: async () => undefined, webhookFlows: async () => [] },
        logger,
      );
      bcryptWatch = watchBcrypt({ held: true });
      const occupying = verifier.verify(connection.id, 1, connection.secretHash ?? '', 'a-wrong-secret');
      const request = (requestId: string) => ({
        connectionId: connection.id,
        headers: { 'content-type': 'application/json', 'x-webhook-secret': secret, 'x-request-id': requestId },
        body: Buffer.from(JSON.stringify({ email: 'nobody@example.com' })),
      });

      const busy = await pipeline.handle(request('busy'));
      expect(busy.status).to.equal(500);
      expect(busy.headers).to.deep.equal({ 'retry-after': '1' });
      expect(busy.body).to.include({ outcome: InboundOutcome.ERROR });
      expect(busy.body.message).to.match(/busy/);
      const row = await app.dataSource.manager.findOneByOrFail(RequestLogRow, { id: busy.body.requestId as string });
      expect(row).to.include({ outcome: InboundOutcome.ERROR, httpStatus: 500 });
      expect(row.detail).to.match(/busy/);

      bcryptWatch.release();
      expect(await occupying).to.equal(false);
      // Authenticated now; no contact matches, which proves the secret passed.
      const retried = await pipeline.handle(request('retry'));
      expect([retried.status, retried.body.outcome, retried.headers]).to.deep.equal([
        422,
        InboundOutcome.IDENTIFIER_NOT_FOUND,
        undefined,
      ]);
    });
  });
});
