export {
  WidgetClient,
  type Attachment,
  type ClientEnvironment,
  type EventTargetLike,
  type SendOptions,
  type UploadOptions,
  type WidgetClientOptions,
} from './client.js';
export type {
  AgentTyping,
  ChatMessage,
  ConnectionState,
  SendState,
  StateListener,
  UploadState,
  VisitorKind,
  WidgetClientState,
} from './state.js';
export type {
  Availability,
  AuthorType,
  BusinessHoursInterval,
  ChatStatus,
  ChatSummary,
  DeliveryStatus,
  GateConfig,
  IdentityVerification,
  InjectableWidgetConfig,
  IntegrationStatus,
  MessageDirection,
  MessagePage,
  PrechatFieldRule,
  PrechatForm,
  UploadedMedia,
  VisitorMedia,
  VisitorMessage,
  VisitorProfile,
  VisitorSession,
  WidgetBranding,
  WidgetConfig,
  WidgetSecurity,
} from './types.js';
export { WidgetApiError } from './errors.js';
export { SseParser, type SseEvent, type SseHandlers } from './sse.js';
export { localStorageAdapter, memoryStorage, type TokenStorage, type WebStorageLike } from './storage.js';
export { backoffDelay, type BackoffOptions } from './backoff.js';
export { isOpenNow, type OpenState } from './hours.js';
export { FALLBACK_LOCALE, resolveLocale } from './locale.js';
export {
  ContentReadError,
  ContentReader,
  type ContentPage,
  type ContentQuery,
  type HelpArticle,
  type HelpArticleQuery,
  type HelpArticleSummary,
  type NewsPost,
  type NewsTerm,
} from './content.js';
