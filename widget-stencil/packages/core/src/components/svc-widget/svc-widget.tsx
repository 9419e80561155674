import { Component, Element, Event, Host, Method, Prop, State, Watch, h, type EventEmitter } from '@stencil/core';
import { type VisitorIdentity } from '@svc-inbox/widget-protocol';
import { type ChatSource, type ChatView, type Profile, type ViewMessage, emptyView } from '../../chat-source';
import { brandColor, readableOn } from '../../color';
import { DemoSource } from '../../demo-source';
import { direction, format, loadStrings, type ShippedLocale, type Strings } from '../../i18n/strings';
import { LiveSource, chooseLocale, isOpenNow, type WidgetConfig } from '../../live';
import { focusables, wantedSize, type WidgetSize } from '../../layout';
import { type ContentTab, type ContentTabs } from '../../content/content-tabs';

type Tab = 'chat' | ContentTab;
const TABS: readonly Tab[] = ['chat', 'help', 'news'];

/**
 * The visitor widget: a launcher and a chat panel in a shadow root. Attributes, methods and events are the
 * contract of docs/widget.md ("The svc-widget web component"); events are bubbling, composed CustomEvents.
 */
@Component({ tag: 'svc-widget', styleUrl: 'svc-widget.css', shadow: true })
export class SvcWidget {
  @Element() el!: HTMLElement;

  /** The integration's public key; without it the widget runs in demo mode (no network). */
  @Prop() publicKey?: string;
  /** Forces the UI locale (BCP-47); else the page's `lang`, then the integration's default. */
  @Prop() locale?: string;
  @Prop() prefillName?: string;
  @Prop() prefillEmail?: string;
  @Prop() prefillPhone?: string;
  /** The widget backend's base URL; default: the origin this script was loaded from. */
  @Prop() api?: string;
  @Prop() hideAttribution = false;
  /** The integration's config (`GET /api/web/config/:publicKey`), given up front: skips the fetch. */
  @Prop() config?: WidgetConfig;
  /** Set by the frame document: the element fills its iframe and the loader places it. */
  @Prop({ reflect: true }) frame = false;

  /** The size the widget wants for its state (launcher, or open panel), in CSS pixels. */
  @Event({ eventName: 'svc:resize', bubbles: true, composed: true }) svcResize!: EventEmitter<WidgetSize>;
  @Event({ eventName: 'svc:open', bubbles: true, composed: true }) svcOpen!: EventEmitter<void>;
  @Event({ eventName: 'svc:close', bubbles: true, composed: true }) svcClose!: EventEmitter<void>;
  @Event({ eventName: 'svc:unread', bubbles: true, composed: true }) svcUnread!: EventEmitter<{ count: number }>;

  @State() strings?: Strings;
  @State() lang: ShippedLocale = 'en';
  @State() isOpen = false;
  @State() view: ChatView = emptyView();
  @State() settings?: WidgetConfig;
  @State() draft = '';
  @State() tab: Tab = 'chat';
  /** Bumped when the lazily loaded Help/News tabs change what they show. */
  @State() contentRevision = 0;

  private source?: ChatSource;
  private unsubscribe?: () => void;
  private identity: VisitorIdentity | null | undefined;
  private booted?: Promise<void>;
  private ready = false;
  private lastSize = '';
  private lastUnread = 0;
  private focusAfterRender: 'panel' | 'launcher' | null = null;
  private atEnd = true;
  private fromBottomBeforeOlder: number | null = null;
  private readonly onViewport = () => this.reportSize();
  private content?: Promise<ContentTabs>;
  private contentTabs?: ContentTabs;

  async componentWillLoad(): Promise<void> {
    // The first paint waits for the config (colours, hide-when-offline) and for the one locale it needs.
    this.booted = this.boot();
    await this.booted;
  }

  connectedCallback(): void {
    window.addEventListener('resize', this.onViewport);
    // Moved in the DOM (a framework re-parenting it): disconnecting stopped the conversation, start it again.
    if (this.ready && !this.source) void this.restart();
  }

  disconnectedCallback(): void {
    window.removeEventListener('resize', this.onViewport);
    this.teardown();
  }

  componentDidRender(): void {
    this.reportSize();
    if (this.view.unread !== this.lastUnread) {
      this.lastUnread = this.view.unread;
      this.svcUnread.emit({ count: this.view.unread });
    }
    const target = this.focusAfterRender;
    this.focusAfterRender = null;
    if (target === 'launcher') this.part<HTMLButtonElement>('.launcher')?.focus();
    if (target === 'panel') {
      const panel = this.part<HTMLElement>('.panel');
      (panel?.querySelector<HTMLElement>('textarea, .prechat input') ?? panel)?.focus();
    }
    if (this.isOpen) {
      this.keepScroll();
      this.source?.seen();
    }
  }

  @Watch('publicKey')
  @Watch('api')
  @Watch('config')
  async restart(): Promise<void> {
    this.teardown();
    this.booted = this.boot();
    await this.booted;
  }

  @Watch('locale')
  async relocalise(): Promise<void> {
    if (!this.settings) return;
    this.lang = chooseLocale(this.locale, pageLanguage(), this.settings);
    this.strings = await loadStrings(this.lang);
  }

  /** Logs a known visitor in (one proof of spec 2.4), or out with `null` (a fresh anonymous session follows). */
  @Method()
  async identify(user: VisitorIdentity | null): Promise<void> {
    this.identity = user;
    // Before the element is ready, boot() applies it; afterwards the source does.
    if (!this.ready) return this.booted;
    await this.source?.identify(user);
  }

  /** Like `identify(null)`, and closes the panel. */
  @Method()
  async shutdown(): Promise<void> {
    await this.close();
    this.identity = null;
    if (!this.ready) return this.booted;
    await this.source?.shutdown();
  }

  /** Opens the panel on the tab last shown (the conversation at first). */
  @Method()
  async open(): Promise<void> {
    await this.booted;
    if (this.isOpen || !this.visible()) return;
    await this.show(this.tab);
  }

  /** Opens the panel on the Help tab showing this published help article (`Svc('showArticle', id)`). */
  @Method()
  async showArticle(articleId: string): Promise<void> {
    if (typeof articleId === 'string' && articleId.trim()) await this.show('help', articleId.trim());
  }

  /** Opens the panel on the News tab (`Svc('showNews')`). */
  @Method()
  async showNews(): Promise<void> {
    await this.show('news');
  }

  private async show(tab: Tab, articleId?: string): Promise<void> {
    await this.booted;
    if (!this.visible()) return;
    // Demo mode has no Help and News (nothing to read without a network): the conversation is shown.
    this.tab = this.publicKey ? tab : 'chat';
    if (!this.isOpen) {
      this.isOpen = true;
      this.focusAfterRender = 'panel';
      this.svcOpen.emit();
    }
    if (this.tab === 'chat') {
      if (!this.view.started && !this.needsPrechat()) await this.source?.start(this.prefill());
      return;
    }
    const content = await this.loadContent();
    if (this.tab === 'help') content.showHelp(articleId);
    else if (this.tab === 'news') content.showNews();
  }

  // The Help and News tabs are a chunk of their own, fetched the first time one is opened (decision 0205).
  private loadContent(): Promise<ContentTabs> {
    this.content ??= import('../../content/content-tabs').then(({ createContentTabs }) => {
      this.contentTabs = createContentTabs(h, {
        api: this.api ?? defaultApi(),
        publicKey: this.publicKey ?? '',
        locale: () => this.lang,
        changed: () => this.contentRevision++,
      });
      return this.contentTabs;
    });
    return this.content;
  }

  @Method()
  async close(): Promise<void> {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.focusAfterRender = 'launcher';
    this.svcClose.emit();
  }

  private async boot(): Promise<void> {
    this.ready = false;
    const live = this.publicKey
      ? new LiveSource({ publicKey: this.publicKey, api: this.api ?? defaultApi(), config: this.config })
      : undefined;
    // An unknown or disabled key (404) or an unreachable backend: nothing is shown.
    const settings = live ? await live.load().catch(() => undefined) : (this.config ?? demoConfig());
    if (!settings) return;
    this.settings = settings;
    this.lang = chooseLocale(this.locale, pageLanguage(), settings);
    this.strings = await loadStrings(this.lang);
    this.attach(live ?? new DemoSource(this.strings, this.teamName()));
    this.ready = true;
    if (live) void live.resume(this.identity);
  }

  private attach(source: ChatSource) {
    this.source = source;
    this.view = source.view;
    this.unsubscribe = source.subscribe(() => {
      this.view = source.view;
    });
  }

  private teardown() {
    this.content = this.contentTabs = undefined;
    this.unsubscribe?.();
    this.source?.stop();
    this.source = undefined;
  }

  private part<T extends Element>(selector: string): T | null {
    return this.el.shadowRoot?.querySelector<T>(selector) ?? null;
  }

  // The log follows new messages while the visitor is at its end; older pages loaded above keep what they read in place.
  private keepScroll() {
    const log = this.part<HTMLElement>('.log');
    if (!log) return;
    if (this.fromBottomBeforeOlder !== null && log.scrollHeight - this.fromBottomBeforeOlder > log.scrollTop) {
      log.scrollTop = log.scrollHeight - this.fromBottomBeforeOlder;
      this.fromBottomBeforeOlder = null;
    } else if (this.atEnd) {
      log.scrollTop = log.scrollHeight;
    }
  }

  private loadOlder(log: HTMLElement | null) {
    if (!this.view.hasOlder) return;
    if (log) this.fromBottomBeforeOlder = log.scrollHeight - log.scrollTop;
    void this.source?.loadOlder();
  }

  private prefill(): Profile {
    return { name: this.prefillName, email: this.prefillEmail, phone: this.prefillPhone };
  }

  private teamName(): string {
    return this.settings?.branding.teamName || this.settings?.name || this.strings?.chat || 'Chat';
  }

  private openNow(): boolean {
    return !this.settings || isOpenNow(this.settings.availability, new Date());
  }

  // Nothing is shown without a config (unknown or disabled key, backend unreachable), when the integration hides the
  // widget, or outside business hours when it hides when offline.
  private visible(): boolean {
    const settings = this.settings;
    if (!settings || !this.strings) return false;
    return !(settings.branding.hidden || (settings.availability.hideWhenOffline && !this.openNow()));
  }

  private needsPrechat(): boolean {
    const form = this.settings?.prechatForm;
    return Boolean(this.publicKey && form?.enabled && !this.identity && !this.view.started);
  }

  private reportSize() {
    const size = wantedSize({ open: this.isOpen, frame: this.frame, visible: this.visible() }, window);
    const key = `${size.width}x${size.height}`;
    if (key === this.lastSize) return;
    this.lastSize = key;
    this.svcResize.emit(size);
  }

  private onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      void this.close();
      return;
    }
    if (event.key !== 'Tab') return;
    // Focus stays in the open panel (WCAG 2.1: the panel acts as a non-modal dialog that keeps focus while open).
    const panel = this.part<HTMLElement>('.panel');
    if (!panel) return;
    const items = focusables(panel);
    const first = items[0];
    const last = items[items.length - 1];
    const active = this.el.shadowRoot?.activeElement;
    if (!first || !last) return;
    if (event.shiftKey && (active === first || active === panel)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && active === last) {
      event.preventDefault();
      first.focus();
    }
  };

  private onSubmit = async (event: Event) => {
    event.preventDefault();
    const text = this.draft.trim();
    if (!text) return;
    this.draft = '';
    this.atEnd = true;
    await this.source?.send(text);
  };

  private onPrechat = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const read = (key: string) => (data.get(key) as string | null)?.trim() || undefined;
    await this.source?.start({ name: read('name'), email: read('email'), phone: read('phone') });
    this.focusAfterRender = 'panel';
  };

  private onFile = async (event: Event) => {
    const input = event.target as HTMLInputElement;
    const files = [...(input.files ?? [])];
    input.value = '';
    for (const file of files) await this.source?.upload(file);
  };

  private onScroll = (event: Event) => {
    const log = event.target as HTMLElement;
    this.atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 48;
    if (log.scrollTop < 40) this.loadOlder(log);
  };

  render() {
    const t = this.strings;
    if (!t || !this.settings || !this.visible()) return <Host hidden />;
    const primary = brandColor(this.settings.branding.primaryColor);
    const style = { '--svc-primary': primary, '--svc-on-primary': readableOn(primary) };
    const side = this.settings.branding.launcherPosition === 'BOTTOM_LEFT' ? 'left' : 'right';
    return (
      <Host style={style}>
        <div class={{ root: true, [side]: true, open: this.isOpen }} dir={direction(this.lang)} lang={this.lang}>
          {this.isOpen ? this.renderPanel(t) : this.renderLauncher(t)}
        </div>
      </Host>
    );
  }

  private renderLauncher(t: Strings) {
    const unread = this.view.unread;
    const label = unread ? `${t.openChat}, ${format(t.unread, { count: unread })}` : t.openChat;
    return (
      <button class="launcher" type="button" aria-label={label} onClick={() => void this.open()}>
        {icon('chat', 28)}
        {unread ? (
          <span class="badge" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        ) : null}
      </button>
    );
  }

  private renderPanel(t: Strings) {
    const title = this.teamName();
    return (
      <section class="panel" role="dialog" aria-label={title} tabindex="-1" onKeyDown={this.onKeyDown}>
        <header class="header">
          {this.avatar(title, this.settings?.branding.teamAvatarUrl, 'team')}
          <div class="title">
            <h2>{title}</h2>
            <p>{this.settings?.branding.greeting || t.greeting}</p>
          </div>
          <button class="close" type="button" aria-label={t.closeChat} onClick={() => void this.close()}>
            {icon('close')}
          </button>
        </header>
        {this.publicKey ? null : (
          <p class="notice demo" role="note">
            {t.demo}
          </p>
        )}
        {this.openNow() ? null : <p class="notice away">{this.settings?.availability.offlineMessage || t.away}</p>}
        {this.banner(t)}
        {this.publicKey ? this.renderTabs(t) : null}
        {this.tab !== 'chat'
          ? this.contentTabs?.render(this.tab, t, this.lang)
          : this.needsPrechat()
            ? this.renderPrechat(t)
            : this.renderConversation(t)}
        {this.hideAttribution ? null : <p class="attribution">{t.poweredBy}</p>}
      </section>
    );
  }

  private renderTabs(t: Strings) {
    return (
      <div class="tabs" role="tablist">
        {TABS.map((tab) => (
          <button
            type="button"
            role="tab"
            id={`svc-tab-${tab}`}
            aria-selected={String(tab === this.tab)}
            onClick={() => void this.show(tab)}
          >
            {t[tab]}
          </button>
        ))}
      </div>
    );
  }

  private banner(t: Strings) {
    const state = this.view.connection;
    if (this.view.error)
      return (
        <p class="notice error" role="alert">
          {t.error}
        </p>
      );
    if (state !== 'reconnecting' && state !== 'offline') return null;
    return (
      <p class="notice reconnecting" role="status">
        {state === 'offline' ? t.offline : t.reconnecting}
      </p>
    );
  }

  private renderPrechat(t: Strings) {
    const form = this.settings?.prechatForm ?? {};
    const field = (key: 'name' | 'email' | 'phone', type: string, autocomplete: string, value?: string) => {
      const rule = form[key];
      if (!rule?.asked) return null;
      return (
        <label>
          <span>
            {t[key]} {rule.required ? null : <span class="optional">{t.optional}</span>}
          </span>
          <input name={key} type={type} autocomplete={autocomplete} required={Boolean(rule.required)} value={value} />
        </label>
      );
    };
    return (
      <form class="prechat" onSubmit={this.onPrechat}>
        <p>{t.prechat}</p>
        {field('name', 'text', 'name', this.prefillName)}
        {field('email', 'email', 'email', this.prefillEmail)}
        {field('phone', 'tel', 'tel', this.prefillPhone)}
        <button class="primary" type="submit">
          {t.start}
        </button>
      </form>
    );
  }

  private renderConversation(t: Strings) {
    const { messages, typing, uploads, hasOlder } = this.view;
    return [
      <div class="log" role="log" aria-live="polite" aria-label={t.conversation} tabindex="0" onScroll={this.onScroll}>
        {hasOlder ? (
          <button class="older" type="button" onClick={() => this.loadOlder(this.part<HTMLElement>('.log'))}>
            {t.older}
          </button>
        ) : null}
        {messages.map((message) => this.renderMessage(t, message))}
      </div>,
      <div class="activity">
        {typing ? (
          <p class="typing" role="status">
            <span class="dots" aria-hidden="true">
              <i />
              <i />
              <i />
            </span>
            {format(t.typing, { name: typing.name })}
          </p>
        ) : null}
        {uploads.map((upload) => (
          <p class="upload" role="status">
            <progress max={100} value={upload.percent} aria-label={upload.name} />
            {format(t.uploading, { name: upload.name, percent: upload.percent })}
          </p>
        ))}
      </div>,
      <form class="composer" onSubmit={this.onSubmit}>
        <label class="attach" title={t.attach}>
          <input type="file" class="file" aria-label={t.attach} onChange={this.onFile} multiple />
          {icon('attach')}
        </label>
        <textarea
          name="message"
          rows={1}
          aria-label={t.message}
          placeholder={t.placeholder}
          value={this.draft}
          onInput={(event) => {
            this.draft = (event.target as HTMLTextAreaElement).value;
            this.source?.typing();
          }}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) void this.onSubmit(event);
          }}
        />
        <button class="send" type="submit" aria-label={t.send}>
          {icon('send')}
        </button>
      </form>,
    ];
  }

  private renderMessage(t: Strings, message: ViewMessage) {
    const time = new Intl.DateTimeFormat(this.lang, { hour: 'numeric', minute: '2-digit' }).format(
      new Date(message.createdAt),
    );
    return (
      <article class={{ message: true, mine: message.mine }} key={message.id}>
        {message.mine ? null : this.avatar(message.authorName, message.avatarUrl, 'author')}
        <div class="bubble">
          {message.mine ? null : <span class="author">{message.authorName}</span>}
          {message.text ? <p class="text">{message.text}</p> : null}
          {message.attachments.map((file) =>
            file.contentType.startsWith('image/') ? (
              <img class="image" src={file.url} alt={file.name} />
            ) : (
              <a class="file-link" href={file.url} target="_blank" rel="noopener" download={file.name}>
                {file.name}
              </a>
            ),
          )}
          <span class="meta">
            <time dateTime={message.createdAt}>{time}</time>
            {message.delivery ? this.ticks(t, message) : null}
          </span>
          {message.delivery === 'failed' ? (
            <button class="retry" type="button" onClick={() => void this.source?.retry(message.id)}>
              {t.retry}
            </button>
          ) : null}
        </div>
      </article>
    );
  }

  private ticks(t: Strings, message: ViewMessage) {
    const label = { pending: t.sending, sent: t.sent, delivered: t.delivered, read: t.read, failed: t.failed };
    const marks = { pending: '◷', sent: '✓', delivered: '✓✓', read: '✓✓', failed: '!' };
    const delivery = message.delivery ?? 'pending';
    return (
      <span class={`ticks ${delivery}`} role="img" aria-label={label[delivery]}>
        {marks[delivery]}
      </span>
    );
  }

  private avatar(name: string, url: string | undefined, kind: 'team' | 'author') {
    return url ? (
      <img class={`avatar avatar-${kind}`} src={url} alt="" width="32" height="32" />
    ) : (
      <span class={`avatar avatar-${kind}`} aria-hidden="true">
        {name.trim().charAt(0).toUpperCase()}
      </span>
    );
  }
}

const ICONS = {
  chat: 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z',
  close: 'M6.4 5 5 6.4 10.6 12 5 17.6 6.4 19 12 13.4 17.6 19 19 17.6 13.4 12 19 6.4 17.6 5 12 10.6z',
  attach:
    'M16.5 6v11.5a4 4 0 0 1-8 0V5a2.5 2.5 0 0 1 5 0v10.5a1 1 0 0 1-2 0V6H10v9.5a2.5 2.5 0 0 0 5 0V5a4 4 0 0 0-8 0v12.5a5.5 5.5 0 0 0 11 0V6z',
  send: 'M3 20.5V14l8-2-8-2V3.5L22 12z',
};

/** A decorative 24-unit icon in the current text colour. */
function icon(name: keyof typeof ICONS, size = 20) {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" width={size} height={size}>
      <path fill="currentColor" d={ICONS[name]} />
    </svg>
  );
}

function pageLanguage(): string {
  return document.documentElement.lang || navigator.language;
}

// The backend defaults to the origin this script came from (the CDN and the API share one origin by default).
function defaultApi(): string {
  return new URL(import.meta.url).origin;
}

function demoConfig(): WidgetConfig {
  return {
    publicKey: '',
    name: 'Demo',
    status: 'ACTIVE',
    defaultLocale: 'en',
    branding: { primaryColor: '#3047ec', teamName: 'Demo team' },
    availability: {},
    prechatForm: {},
    security: { identityVerification: 'OFF', googleClientId: '' },
  };
}
