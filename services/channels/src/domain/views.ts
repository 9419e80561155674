import type { WebIntegration } from '@svc/proto/channels/v1';
import type { ChannelRow, WebIntegrationRow } from '../entities';
import type { WebIntegrationFields, WebSettings } from './web-settings';

export interface StoredWebIntegration {
  channel: ChannelRow;
  web: WebIntegrationRow;
}

export function fieldsOf({ channel, web }: StoredWebIntegration): WebIntegrationFields {
  return {
    name: channel.name,
    status: channel.status,
    settings: JSON.parse(web.settings) as WebSettings,
    security: {
      identityVerification: web.identityVerification,
      googleClientId: web.googleClientId,
      jwtMaxAgeSeconds: web.jwtMaxAgeSeconds,
    },
  };
}

/** The API view: never the identity secret, sealed or not. */
export function webIntegrationView(stored: StoredWebIntegration): WebIntegration {
  const { channel, web } = stored;
  const { name, status, settings, security } = fieldsOf(stored);
  return {
    id: channel.id,
    name,
    status,
    publicKey: web.publicKey,
    allowedOrigins: settings.allowedOrigins,
    branding: settings.branding,
    defaultLocale: settings.defaultLocale,
    availability: settings.availability,
    prechatForm: settings.prechatForm,
    security,
    createdAt: channel.createdAt.toISOString(),
    updatedAt: channel.updatedAt.toISOString(),
    identitySecretRotatedAt: web.identitySecretRotatedAt.toISOString(),
  };
}
