import { ChangeDetectionStrategy, Component, VERSION, signal } from '@angular/core';
import { SvcWidgetComponent, type VisitorIdentity, type WidgetSize } from '@svc-inbox/widget-angular';

// The page's query string says which integration and backend to use, and who the visitor is (the browser tests set it).
const query = new URLSearchParams(location.search);

@Component({
  selector: 'app-root',
  imports: [SvcWidgetComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <main>
      <h1>
        Angular <span id="framework-version">{{ version }}</span> + &#64;svc-inbox/widget-angular
      </h1>
      <button id="open-chat" (click)="widget.openPanel()">Open chat</button>
      <button id="close-chat" (click)="widget.closePanel()">Close chat</button>
      <button id="re-render" (click)="renders.set(renders() + 1)">Re-render ({{ renders() }})</button>
      <ol id="events">
        @for (entry of events(); track $index) {
          <li>{{ entry }}</li>
        }
      </ol>
      <svc-inbox-widget
        #widget
        class="support-widget"
        [publicKey]="publicKey"
        [api]="api"
        [user]="user(renders())"
        (resize)="onResize($event)"
        (open)="log('open')"
        (close)="log('close')"
      />
    </main>
  `,
})
export class App {
  protected readonly version = VERSION.full;
  protected readonly publicKey = query.get('publicKey') ?? undefined;
  protected readonly api = query.get('api') ?? undefined;
  protected readonly renders = signal(0);
  protected readonly events = signal<string[]>([]);

  protected log(entry: string): void {
    this.events.update((all) => [...all, entry]);
  }

  protected onResize({ width, height }: WidgetSize): void {
    this.log(`resize ${width}x${height}`);
  }

  /** Deliberately a new object on every render: equal by value, it must not identify the visitor again. */
  protected user(_render: number): VisitorIdentity | undefined {
    const json = query.get('user');
    return json ? (JSON.parse(json) as VisitorIdentity) : undefined;
  }
}
