import { Webhook } from 'standardwebhooks';
import type { PartnerWebhookRow } from '../../entities';

/**
 * The secrets (`whsec_…`) that sign a webhook's deliveries at a time: the current one, and the previous one while its
 * rotation grace lasts. The secrets module (webhook secrets, sealed with the keyring) answers it.
 */
export interface SigningSecrets {
  signingSecrets(webhook: PartnerWebhookRow, at: Date): string[];
}

/** The Standard Webhooks headers of one attempt: one `v1,<base64>` per secret, space-separated. */
export function signedHeaders(
  secrets: readonly string[],
  messageId: string,
  at: Date,
  body: string,
): Record<string, string> {
  if (!secrets.length) throw new Error(`no signing secret for ${messageId}`);
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': Math.floor(at.getTime() / 1000).toString(),
    // The package's own signer: the bytes a `standardwebhooks` verifier recomputes.
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' '),
  };
}
