/** The JSON bodies of the widget HTTP API (docs/widget-api.md), as the visitor's side reads them. */

export type IntegrationStatus = 'ACTIVE' | 'DISABLED';
export type IdentityVerification = 'OFF' | 'OPTIONAL' | 'REQUIRED';

export interface WidgetSecurity {
  identityVerification: IdentityVerification;
  /** Empty: Google sign-in is not offered. */
  googleClientId: string;
}

/** `GET /config/:publicKey?view=gate`: what the loader needs before it mounts anything. */
export interface GateConfig {
  publicKey: string;
  status: IntegrationStatus;
  branding: { hidden: boolean };
  security: WidgetSecurity;
}

/** One opening interval: ISO weekday (1 = Monday … 7 = Sunday), `HH:MM` 24-hour (`24:00` = midnight at its end). */
export interface BusinessHoursInterval {
  weekday: number;
  opens: string;
  closes: string;
}

export interface Availability {
  /** IANA time zone of the business hours, e.g. `Europe/Lisbon`; empty: UTC. */
  timeZone?: string;
  /** Empty or absent: always open. */
  businessHours?: BusinessHoursInterval[];
  offlineMessage?: string;
  hideWhenOffline?: boolean;
}

export interface PrechatFieldRule {
  asked?: boolean;
  required?: boolean;
}

export interface PrechatForm {
  enabled?: boolean;
  name?: PrechatFieldRule;
  email?: PrechatFieldRule;
  phone?: PrechatFieldRule;
}

export interface WidgetBranding {
  primaryColor?: string;
  accentColor?: string;
  launcherPosition?: string;
  greeting?: string;
  teamName?: string;
  teamAvatarUrl?: string;
  hidden?: boolean;
}

/** `GET /config/:publicKey`: the full sanitised config; also the `InjectableWidgetConfig` of spec 4.4. */
export interface WidgetConfig {
  publicKey: string;
  name: string;
  status: IntegrationStatus;
  defaultLocale: string;
  branding: WidgetBranding;
  availability: Availability;
  prechatForm: PrechatForm;
  security: WidgetSecurity;
}

/** Spec 4.4's name for a config given to the widget up front (it skips the fetch). */
export type InjectableWidgetConfig = WidgetConfig;

export type MessageDirection = 'INBOUND' | 'OUTBOUND';
export type AuthorType = 'CONTACT' | 'MEMBER' | 'API_KEY' | 'SYSTEM';
export type DeliveryStatus = 'QUEUED' | 'SENT' | 'DELIVERED' | 'READ' | 'FAILED' | 'NOT_APPLICABLE';
export type ChatStatus = 'OPEN' | 'CLOSED';

export interface VisitorMedia {
  _id: string;
  type: string;
  contentType: string;
  fileName: string;
  sizeBytes: number | string;
  url: string;
  urlExpiresAt: string;
  caption?: string;
}

/** A message as the visitor sees it: INBOUND is the visitor's own, OUTBOUND the team's. */
export interface VisitorMessage {
  _id: string;
  chatId: string;
  direction: MessageDirection;
  author: { type: AuthorType; displayName?: string; avatarUrl?: string };
  type: string;
  text: string;
  media: VisitorMedia[];
  location?: unknown;
  contactCard?: unknown;
  buttons: unknown[];
  deliveryStatus: DeliveryStatus;
  createdAt: string;
  editedAt?: string;
  deleted: boolean;
}

/** A page of messages, newest first (spec 2.2's cursor convention with `isBefore`). */
export interface MessagePage {
  data: VisitorMessage[];
  nextCursor?: string;
  previousCursor?: string;
  hasNext: boolean;
  hasPrevious: boolean;
}

export interface ChatSummary {
  _id: string;
  status: ChatStatus;
  unreadCount: number;
  lastEventSeq: number;
  createdAt?: string;
  lastMessageAt?: string;
}

/** Every handshake's and refresh's answer. */
export interface VisitorSession {
  sessionToken: string;
  sessionExpiresAt: string;
  refreshToken: string;
  identified: boolean;
  chat: ChatSummary;
  messages: MessagePage;
}

/** `POST /media`'s answer: send its `_id` in `mediaIds`. */
export type UploadedMedia = VisitorMedia;

/** The visitor's profile typed into the prechat form (never used to find a contact). */
export interface VisitorProfile {
  name?: string;
  email?: string;
  phone?: string;
}
