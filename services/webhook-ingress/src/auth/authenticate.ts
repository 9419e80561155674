import { InboundAuthMode } from '@svc/proto/webhooks/v1';
import type { ConnectionRow } from '../entities';

/** The columns of a connection that verification reads. */
export type AuthColumns = Pick<
  ConnectionRow,
  'id' | 'authMode' | 'secretHash' | 'secretVersion' | 'hmacHeader' | 'hmacEncoding' | 'hmacPrefix'
>;
import type { HeaderReader } from './hmac';
import {
  verifyBillingProvider,
  verifyBusinessBankingProvider,
  verifyDeliveryPlatform,
  verifyGenericHmac,
  verifyPaymentsProvider,
  verifyTeamChatProvider,
  type Verifier,
} from './provider-modes';
import type { SharedSecretVerifier } from './shared-secret';

const PROVIDERS: Partial<Record<InboundAuthMode, Verifier>> = {
  [InboundAuthMode.PAYMENTS_PROVIDER]: verifyPaymentsProvider,
  [InboundAuthMode.TEAM_CHAT_PROVIDER]: verifyTeamChatProvider,
  [InboundAuthMode.WEBHOOK_DELIVERY_PLATFORM]: verifyDeliveryPlatform,
  [InboundAuthMode.BILLING_PROVIDER]: verifyBillingProvider,
  [InboundAuthMode.BUSINESS_BANKING_PROVIDER]: verifyBusinessBankingProvider,
};

/**
 * Step 1 of the pipeline. `body` is undefined when it was too large to read: then only what the headers alone can
 * prove is checked (the secret, or a well-formed fresh signature header), and the caller answers 413.
 * `signingSecret` is the provider mode's secret, already opened (it is sealed at rest: secrets/signing-secrets.ts).
 */
export async function authenticate(
  connection: AuthColumns,
  headers: HeaderReader,
  body: Buffer | undefined,
  sharedSecrets: SharedSecretVerifier,
  signingSecret: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  if (connection.authMode === InboundAuthMode.SHARED_SECRET) {
    if (!connection.secretHash) return false;
    return sharedSecrets.verify(
      connection.id,
      connection.secretVersion,
      connection.secretHash,
      headers('x-webhook-secret'),
    );
  }
  const secret = signingSecret;
  if (!secret) return false;
  if (connection.authMode === InboundAuthMode.GENERIC_HMAC_SHA256) {
    if (!connection.hmacHeader || !connection.hmacEncoding) return false;
    const verify = verifyGenericHmac({
      headerName: connection.hmacHeader,
      encoding: connection.hmacEncoding,
      prefix: connection.hmacPrefix,
    });
    return verify({ headers, body, secret, nowSeconds });
  }
  const verify = PROVIDERS[connection.authMode];
  return verify ? verify({ headers, body, secret, nowSeconds }) : false;
}

/** The idempotency key a mode carries by itself (Standard Webhooks' message id), when no explicit key is sent. */
export function providerIdempotencyKey(
  connection: Pick<ConnectionRow, 'authMode'>,
  headers: HeaderReader,
): string | undefined {
  if (connection.authMode !== InboundAuthMode.WEBHOOK_DELIVERY_PLATFORM) return undefined;
  return headers('webhook-id') ?? headers('svix-id');
}
