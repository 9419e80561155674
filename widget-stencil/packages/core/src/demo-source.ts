import { emptyView, type ChatSource, type ChatView, type ViewMessage } from './chat-source';
import { type Strings } from './i18n/strings';

const REPLY_DELAY_MS = 900;

/**
 * Demo mode (no `public-key`): a sample conversation kept in memory. Nothing leaves the page, nothing is stored;
 * the visitor's messages get a canned answer so the typing indicator and the ticks can be seen.
 */
export class DemoSource implements ChatSource {
  view: ChatView;
  private readonly listeners = new Set<() => void>();
  private counter = 0;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly strings: Strings,
    private readonly teamName: string,
  ) {
    const now = Date.now();
    this.view = {
      ...emptyView(),
      connection: 'live',
      started: true,
      unread: 1,
      messages: [
        this.message(false, strings.demoAgent, now - 180_000),
        this.message(true, strings.demoVisitor, now - 120_000, 'read'),
        this.message(false, strings.demoReply, now - 60_000),
      ],
    };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<void> {}

  async identify(): Promise<void> {}

  async shutdown(): Promise<void> {}

  async send(text: string): Promise<void> {
    const mine = this.message(true, text, Date.now(), 'sent');
    this.update({ messages: [...this.view.messages, mine] });
    this.later(() => {
      this.setDelivery(mine.id, 'read');
      this.update({ typing: { name: this.teamName } });
      this.later(() => {
        this.update({
          typing: null,
          messages: [...this.view.messages, this.message(false, this.strings.demoReply, Date.now())],
        });
      });
    });
  }

  async retry(): Promise<void> {}

  async upload(file: File): Promise<void> {
    const attachment = { name: file.name, url: URL.createObjectURL(file), contentType: file.type };
    const mine = { ...this.message(true, '', Date.now(), 'sent'), attachments: [attachment] };
    this.update({ messages: [...this.view.messages, mine] });
  }

  typing(): void {}

  async loadOlder(): Promise<void> {}

  seen(): void {
    if (this.view.unread) this.update({ unread: 0 });
  }

  stop(): void {
    this.timers.forEach(clearTimeout);
    this.timers.clear();
  }

  private message(mine: boolean, text: string, at: number, delivery?: ViewMessage['delivery']): ViewMessage {
    this.counter += 1;
    return {
      id: `demo-${this.counter}`,
      mine,
      text,
      createdAt: new Date(at).toISOString(),
      authorName: mine ? this.strings.you : this.teamName,
      delivery,
      attachments: [],
    };
  }

  private setDelivery(id: string, delivery: ViewMessage['delivery']) {
    this.update({ messages: this.view.messages.map((m) => (m.id === id ? { ...m, delivery } : m)) });
  }

  private later(run: () => void) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, REPLY_DELAY_MS);
    this.timers.add(timer);
  }

  private update(change: Partial<ChatView>) {
    this.view = { ...this.view, ...change };
    this.listeners.forEach((listener) => listener());
  }
}
