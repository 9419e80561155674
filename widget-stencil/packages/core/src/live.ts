import {
  WidgetClient,
  isOpenNow as openState,
  localStorageAdapter,
  resolveLocale,
  type Availability,
  type ChatMessage,
  type WidgetClientState,
  type WidgetConfig,
} from '@svc-inbox/widget-client';
import { type VisitorIdentity } from '@svc-inbox/widget-protocol';
import {
  emptyView,
  type ChatSource,
  type ChatView,
  type Delivery,
  type Profile,
  type ViewMessage,
} from './chat-source';
import { SHIPPED_LOCALES, isShipped, type ShippedLocale } from './i18n/strings';

export type { WidgetConfig };

export function isOpenNow(availability: Availability | undefined, now: Date): boolean {
  return openState(availability, now).open;
}

/** `locale` attribute, then the page's language, then the integration's default (BCP-47 fallback; decision 0106). */
export function chooseLocale(requested: string | undefined, page: string, config: WidgetConfig): ShippedLocale {
  const tag = resolveLocale(requested, page, config.defaultLocale, SHIPPED_LOCALES);
  return isShipped(tag) ? tag : 'en';
}

export interface LiveOptions {
  publicKey: string;
  api: string;
  config?: WidgetConfig;
}

/**
 * The live conversation: @svc-inbox/widget-client does every request, the stream, storage and resync; this maps its
 * state to what the element shows and acknowledges what the visitor was shown.
 */
export class LiveSource implements ChatSource {
  view: ChatView = emptyView();
  readonly client: WidgetClient;
  private readonly listeners = new Set<() => void>();
  private readonly acknowledged = new Set<string>();
  private stopState?: () => void;
  private teamName = '';
  private teamAvatarUrl?: string;

  constructor(options: LiveOptions) {
    this.client = new WidgetClient({
      apiUrl: options.api,
      publicKey: options.publicKey,
      config: options.config,
      storage: localStorageAdapter(),
    });
  }

  /** Loads the config; the first paint waits for it (colours, locale, hide-when-offline). */
  async load(): Promise<WidgetConfig> {
    const config = await this.client.loadConfig();
    this.teamName = config.branding.teamName || config.name;
    this.teamAvatarUrl = config.branding.teamAvatarUrl || undefined;
    this.stopState = this.client.subscribe((state) => this.onState(state));
    this.onState(this.client.getState());
    return config;
  }

  /**
   * Resumes this browser's stored session (never creates a visitor), or applies what the page said before the
   * element was ready: a visitor to identify, or `null` to log out.
   */
  async resume(identity: VisitorIdentity | null | undefined): Promise<void> {
    await (identity === undefined ? this.client.start() : this.client.identify(identity)).catch(() => undefined);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(profile?: Profile): Promise<void> {
    await this.client.open(profile);
  }

  async identify(user: VisitorIdentity | null): Promise<void> {
    await this.client.identify(user).catch(() => undefined); // a refused proof shows as the state's error
  }

  async shutdown(): Promise<void> {
    await this.client.shutdown().catch(() => undefined);
  }

  async send(text: string): Promise<void> {
    await this.client.send(text).catch(() => undefined); // a failure shows as the message's state (retry)
  }

  async retry(messageId: string): Promise<void> {
    await this.client.retry(messageId).catch(() => undefined);
  }

  async upload(file: File): Promise<void> {
    await this.client.send('', { attachments: [{ file, fileName: file.name }] }).catch(() => undefined);
  }

  typing(): void {
    this.client.setTyping(true);
  }

  async loadOlder(): Promise<void> {
    if (!this.client.getState().loadingOlder) await this.client.loadOlder();
  }

  seen(): void {
    if (this.client.getState().unreadCount > 0) void this.client.markRead().catch(() => undefined);
  }

  stop(): void {
    this.stopState?.();
    this.client.destroy();
  }

  private onState(state: WidgetClientState) {
    this.acknowledgeDelivered(state.messages);
    this.view = {
      messages: state.messages.map((message) => this.viewMessage(message)),
      typing: state.agentTyping
        ? { name: state.agentTyping.displayName, avatarUrl: state.agentTyping.avatarUrl }
        : null,
      connection: state.connection,
      unread: state.unreadCount,
      hasOlder: state.hasOlder,
      uploads: state.uploads
        .filter((upload) => upload.state === 'uploading')
        .map((upload) => ({
          id: `${upload.messageKey}:${upload.fileName}`,
          name: upload.fileName,
          percent: upload.total ? Math.floor((100 * upload.loaded) / upload.total) : 0,
        })),
      started: state.visitor !== 'none',
      error: state.error !== null,
    };
    this.listeners.forEach((listener) => listener());
  }

  // An agent message that reached this page is DELIVERED (the client sends each id once); READ waits for `seen`.
  private acknowledgeDelivered(messages: readonly ChatMessage[]) {
    const fresh = messages
      .filter((m) => m.direction === 'OUTBOUND' && m.deliveryStatus === 'SENT' && !this.acknowledged.has(m._id))
      .map((m) => m._id);
    if (!fresh.length) return;
    fresh.forEach((id) => this.acknowledged.add(id));
    void this.client.markDelivered(fresh).catch(() => undefined);
  }

  private viewMessage(message: ChatMessage): ViewMessage {
    const mine = message.direction === 'INBOUND';
    const byTeam = message.author.type === 'API_KEY' || message.author.type === 'SYSTEM';
    return {
      id: message.key,
      mine,
      text: message.deleted ? '' : message.text,
      createdAt: message.createdAt,
      authorName: (byTeam ? this.teamName : message.author.displayName) || this.teamName,
      avatarUrl: (byTeam ? this.teamAvatarUrl : message.author.avatarUrl) || undefined,
      delivery: mine ? delivery(message) : undefined,
      attachments: message.media.map((media) => ({
        name: media.fileName,
        url: media.url,
        contentType: media.contentType,
      })),
    };
  }
}

function delivery(message: ChatMessage): Delivery {
  if (message.sendState !== 'sent') return message.sendState;
  if (message.deliveryStatus === 'READ') return 'read';
  if (message.deliveryStatus === 'DELIVERED') return 'delivered';
  if (message.deliveryStatus === 'FAILED') return 'failed';
  return 'sent';
}
