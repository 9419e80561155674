import {
  ChannelStatus,
  IdentityVerification,
  WebAvailability,
  WebBranding,
  WebPrechatForm,
  type WebIntegration,
} from '@svc/proto/channels/v1';

/**
 * What an anonymous page may see of an integration (docs/widget-api.md): never the identity secret (channels never
 * sends it), the allowed origins (the frame document enforces them), ids or timestamps. `security` says only what the
 * widget needs to choose a handshake: whether identity is required and whether Google sign-in is offered (the
 * client id is public: Google's button needs it).
 */
export function fullConfig(integration: WebIntegration) {
  return {
    publicKey: integration.publicKey,
    name: integration.name,
    status: statusOf(integration),
    defaultLocale: integration.defaultLocale,
    branding: WebBranding.toJSON(integration.branding ?? WebBranding.fromPartial({})),
    availability: WebAvailability.toJSON(integration.availability ?? WebAvailability.fromPartial({})),
    prechatForm: WebPrechatForm.toJSON(integration.prechatForm ?? WebPrechatForm.fromPartial({})),
    security: securityOf(integration),
  };
}

/** The slim pre-mount payload (spec 4.3): status, `branding.hidden`, security. */
export function gateConfig(integration: WebIntegration) {
  return {
    publicKey: integration.publicKey,
    status: statusOf(integration),
    branding: { hidden: integration.branding?.hidden ?? false },
    security: securityOf(integration),
  };
}

function statusOf(integration: WebIntegration): 'ACTIVE' | 'DISABLED' {
  return integration.status === ChannelStatus.ACTIVE ? 'ACTIVE' : 'DISABLED';
}

function securityOf(integration: WebIntegration) {
  const security = integration.security;
  const verification = security?.identityVerification ?? IdentityVerification.OFF;
  return {
    identityVerification:
      verification === IdentityVerification.IDENTITY_VERIFICATION_UNSPECIFIED ? IdentityVerification.OFF : verification,
    googleClientId: security?.googleClientId ?? '',
  };
}
