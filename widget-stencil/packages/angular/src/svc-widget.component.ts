import {
  ChangeDetectionStrategy,
  Component,
  CUSTOM_ELEMENTS_SCHEMA,
  DestroyRef,
  ElementRef,
  computed,
  effect,
  inject,
  input,
  output,
  untracked,
  viewChild,
} from '@angular/core';
import {
  defineSvcWidget,
  type InjectableWidgetConfig,
  type VisitorIdentity,
  type WidgetSize,
} from '@svc-inbox/widget-core';
import { identityKey, type Prefill } from '@svc-inbox/widget-protocol';

/** `<svc-widget>` (core's element type; the global `HTMLSvcWidgetElement`). */
export type SvcWidgetElement = HTMLSvcWidgetElement;

/**
 * `<svc-inbox-widget>`: the `svc-widget` element with Angular inputs and outputs. Hand-written: Angular templates
 * cannot bind `(svc:resize)` (the colon reads as a global target), and Stencil's Angular output target emits invalid
 * TypeScript for these names; so the `svc:*` DOM events, which bubble out of the element, are re-emitted as
 * `(resize)`, `(open)` and `(close)`.
 */
@Component({
  selector: 'svc-inbox-widget',
  standalone: true,
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
  changeDetection: ChangeDetectionStrategy.OnPush,
  host: { style: 'display: contents' },
  template: `<svc-widget
    #widget
    [attr.public-key]="publicKey() ?? null"
    [attr.locale]="locale() ?? null"
    [attr.api]="api() ?? null"
    [attr.prefill-name]="prefill()?.name ?? null"
    [attr.prefill-email]="prefill()?.email ?? null"
    [attr.prefill-phone]="prefill()?.phone ?? null"
    [attr.hide-attribution]="hideAttribution() ? '' : null"
  ></svc-widget>`,
})
export class SvcWidgetComponent {
  /** Integration key; omit it for demo mode. */
  readonly publicKey = input<string>();
  /** Known-visitor proof; compared by value, so a new object with the same fields does not identify again. */
  readonly user = input<VisitorIdentity | null>();
  /** Pre-resolved config (`GET /api/web/config/:publicKey`); skips the bootstrap fetch. */
  readonly config = input<InjectableWidgetConfig>();
  readonly locale = input<string>();
  /** Widget backend base URL; default: the origin the widget script came from. */
  readonly api = input<string>();
  readonly prefill = input<Prefill>();
  readonly hideAttribution = input(false);

  readonly resize = output<WidgetSize>();
  readonly open = output<void>();
  readonly close = output<void>();

  private readonly widget = viewChild.required<ElementRef<SvcWidgetElement>>('widget');
  // A computed string only changes when the identity changes by value, so the effect below runs only then.
  private readonly userKey = computed(() => identityKey(this.user()));
  private identified = false;

  constructor() {
    defineSvcWidget();
    const host = inject<ElementRef<HTMLElement>>(ElementRef).nativeElement;
    const listeners: [string, (event: Event) => void][] = [
      ['svc:resize', (event) => this.resize.emit((event as CustomEvent<WidgetSize>).detail)],
      ['svc:open', () => this.open.emit()],
      ['svc:close', () => this.close.emit()],
    ];
    for (const [name, listener] of listeners) host.addEventListener(name, listener);
    inject(DestroyRef).onDestroy(() => {
      for (const [name, listener] of listeners) host.removeEventListener(name, listener);
    });

    effect(() => {
      const config = this.config();
      if (config !== undefined) this.widget().nativeElement.config = config;
    });
    effect(() => {
      this.userKey();
      const user = untracked(() => this.user()) ?? null;
      // Anonymous from the start needs no call; a visitor who was identified and no longer is gets logged out.
      if (user === null && !this.identified) return;
      this.identified = user !== null;
      void untracked(() => this.widget()).nativeElement.identify(user);
    });
  }

  /** Opens the panel (the element's `open()`). */
  openPanel(): Promise<void> {
    return this.widget().nativeElement.open();
  }

  /** Closes the panel (the element's `close()`). */
  closePanel(): Promise<void> {
    return this.widget().nativeElement.close();
  }

  /** Opens the panel on this published help article (the element's `showArticle()`). */
  showArticle(articleId: string): Promise<void> {
    return this.widget().nativeElement.showArticle(articleId);
  }

  /** Opens the panel on the News tab (the element's `showNews()`). */
  showNews(): Promise<void> {
    return this.widget().nativeElement.showNews();
  }
}
