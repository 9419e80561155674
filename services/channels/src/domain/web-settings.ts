import {
  ChannelStatus,
  IdentityVerification,
  LauncherPosition,
  type PrechatFieldRule,
  type WebAvailability,
  type WebBranding,
  type WebIntegrationInput,
  type WebPrechatForm,
  type WebSecurity,
} from '@svc/proto/channels/v1';
import * as valid from './validation';

/** What the widget shows: stored as one JSON document (`web_integrations.settings`). */
export interface WebSettings {
  allowedOrigins: string[];
  branding: WebBranding;
  defaultLocale: string;
  availability: WebAvailability;
  prechatForm: WebPrechatForm;
}

/** Everything an input may set. */
export interface WebIntegrationFields {
  name: string;
  status: ChannelStatus;
  settings: WebSettings;
  security: WebSecurity;
}

/** The defaults of a new integration (docs/decisions/0075). */
export function defaultFields(): WebIntegrationFields {
  const notAsked: PrechatFieldRule = { asked: false, required: false };
  return {
    name: 'Website',
    status: ChannelStatus.ACTIVE,
    settings: {
      // None: no page may embed the widget until the org lists its sites.
      allowedOrigins: [],
      branding: {
        primaryColor: '#1f6feb',
        accentColor: '#ffffff',
        launcherPosition: LauncherPosition.BOTTOM_RIGHT,
        greeting: 'Hi! How can we help?',
        teamName: '',
        teamAvatarUrl: '',
        hidden: false,
      },
      defaultLocale: 'en',
      // No business hours: always open.
      availability: { timeZone: 'UTC', businessHours: [], offlineMessage: '', hideWhenOffline: false },
      prechatForm: { enabled: false, name: { ...notAsked }, email: { ...notAsked }, phone: { ...notAsked } },
    },
    security: {
      identityVerification: IdentityVerification.OPTIONAL,
      googleClientId: '',
      jwtMaxAgeSeconds: 3600,
    },
  };
}

const STATUSES = [ChannelStatus.ACTIVE, ChannelStatus.DISABLED];
const POSITIONS = [LauncherPosition.BOTTOM_RIGHT, LauncherPosition.BOTTOM_LEFT];
const VERIFICATIONS = [IdentityVerification.OFF, IdentityVerification.OPTIONAL, IdentityVerification.REQUIRED];

function prechatRule(rule: PrechatFieldRule | undefined, field: string): PrechatFieldRule {
  const asked = rule?.asked ?? false;
  const required = rule?.required ?? false;
  if (required && !asked) valid.invalid(`${field}.required`, 'a field can be required only when it is asked');
  return { asked, required };
}

/**
 * `current` with what `input` names replaced, every value validated (BAD_USER_INPUT naming the input field) and
 * normalised; what the input does not name is kept. Create applies its input to `defaultFields()`.
 */
export function applyInput(current: WebIntegrationFields, input: WebIntegrationInput): WebIntegrationFields {
  const { settings, security } = current;
  const branding = { ...settings.branding };
  const b = input.branding;
  if (b?.primaryColor !== undefined) branding.primaryColor = valid.color(b.primaryColor, 'branding.primaryColor');
  if (b?.accentColor !== undefined) branding.accentColor = valid.color(b.accentColor, 'branding.accentColor');
  if (b?.launcherPosition !== undefined)
    branding.launcherPosition = valid.oneOf(b.launcherPosition, POSITIONS, 'branding.launcherPosition');
  if (b?.greeting !== undefined) branding.greeting = valid.text(b.greeting, 'branding.greeting', 500);
  if (b?.teamName !== undefined) branding.teamName = valid.text(b.teamName, 'branding.teamName', 100);
  if (b?.teamAvatarUrl !== undefined)
    branding.teamAvatarUrl = valid.httpsUrl(b.teamAvatarUrl, 'branding.teamAvatarUrl');
  if (b?.hidden !== undefined) branding.hidden = b.hidden;

  const availability = { ...settings.availability };
  const a = input.availability;
  if (a?.timeZone !== undefined) availability.timeZone = valid.timeZone(a.timeZone, 'availability.timeZone');
  if (a?.businessHours !== undefined)
    availability.businessHours = valid.businessHours(a.businessHours.intervals, 'availability.businessHours');
  if (a?.offlineMessage !== undefined)
    availability.offlineMessage = valid.text(a.offlineMessage, 'availability.offlineMessage', 1000);
  if (a?.hideWhenOffline !== undefined) availability.hideWhenOffline = a.hideWhenOffline;

  const p = input.prechatForm;
  const prechatForm = p
    ? {
        enabled: p.enabled,
        name: prechatRule(p.name, 'prechatForm.name'),
        email: prechatRule(p.email, 'prechatForm.email'),
        phone: prechatRule(p.phone, 'prechatForm.phone'),
      }
    : settings.prechatForm;

  const nextSecurity = { ...security };
  const s = input.security;
  if (s?.identityVerification !== undefined)
    nextSecurity.identityVerification = valid.oneOf(
      s.identityVerification,
      VERIFICATIONS,
      'security.identityVerification',
    );
  if (s?.googleClientId !== undefined)
    nextSecurity.googleClientId = valid.token(s.googleClientId, 'security.googleClientId', 255);
  if (s?.jwtMaxAgeSeconds !== undefined)
    nextSecurity.jwtMaxAgeSeconds = valid.jwtMaxAge(s.jwtMaxAgeSeconds, 'security.jwtMaxAgeSeconds');

  return {
    name: input.name !== undefined ? valid.text(input.name, 'name', 100, { allowEmpty: false }) : current.name,
    status: input.status !== undefined ? valid.oneOf(input.status, STATUSES, 'status') : current.status,
    settings: {
      allowedOrigins:
        input.allowedOrigins !== undefined
          ? valid.origins(input.allowedOrigins.origins, 'allowedOrigins')
          : settings.allowedOrigins,
      branding,
      defaultLocale:
        input.defaultLocale !== undefined ? valid.locale(input.defaultLocale, 'defaultLocale') : settings.defaultLocale,
      availability,
      prechatForm,
    },
    security: nextSecurity,
  };
}
