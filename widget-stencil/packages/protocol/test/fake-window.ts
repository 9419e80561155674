// A pair of fake windows (EventTarget-based, Node has no Window): what a browser does with postMessage, reduced to
// what the channel relies on. Posting structured-clones the data and delivers it in a later task, and only when the
// receiving window is at `targetOrigin`; the event names the sending window as `source` and its origin.

import type { MessageEventLike, MessageReceiver, MessageTarget } from '../src/index.js';

const inFlight = new Set<Promise<void>>();

class FakeMessageEvent extends Event {
  constructor(
    readonly data: unknown,
    readonly origin: string,
    readonly source: unknown,
  ) {
    super('message');
  }
}

export interface Post {
  message: unknown;
  targetOrigin: string;
}

type Listener = (event: MessageEventLike) => void;

export class FakeWindow implements MessageReceiver, MessageTarget {
  private readonly events = new EventTarget();
  private readonly listeners = new Map<Listener, (event: Event) => void>();
  /** Every postMessage called on this window, as called. */
  readonly posts: Post[] = [];
  /** The window whose code calls this one's postMessage (the iframe's parent, or the iframe). */
  peer: FakeWindow | null = null;

  constructor(readonly origin: string) {}

  addEventListener(type: 'message', listener: Listener): void {
    const onEvent = (event: Event) => listener(event as FakeMessageEvent);
    this.listeners.set(listener, onEvent);
    this.events.addEventListener(type, onEvent);
  }

  removeEventListener(type: 'message', listener: Listener): void {
    const onEvent = this.listeners.get(listener);
    if (onEvent) this.events.removeEventListener(type, onEvent);
    this.listeners.delete(listener);
  }

  dispatchEvent(event: Event): void {
    this.events.dispatchEvent(event);
  }

  postMessage(message: unknown, targetOrigin: string): void {
    this.posts.push({ message, targetOrigin });
    if (!this.peer) throw new Error('no peer window');
    if (targetOrigin !== '*' && targetOrigin !== this.origin) return;
    deliver(this, message, this.peer);
  }
}

/** A host page and the widget iframe inside it, each the other's peer. */
export function windowPair(hostOrigin: string, widgetOrigin: string) {
  const host = new FakeWindow(hostOrigin);
  const widget = new FakeWindow(widgetOrigin);
  host.peer = widget;
  widget.peer = host;
  return { host, widget };
}

/** A message as `source` (or a third window) would send it, with the origin the browser would stamp on it. */
export function deliver(to: FakeWindow, message: unknown, source: FakeWindow, origin = source.origin): void {
  const data = structuredClone(message);
  const delivery = new Promise<void>((resolve) =>
    setImmediate(() => {
      inFlight.delete(delivery);
      to.dispatchEvent(new FakeMessageEvent(data, origin, source));
      resolve();
    }),
  );
  inFlight.add(delivery);
}

/** Resolves once every posted message, including those posted while delivering, has been delivered. */
export async function settled(): Promise<void> {
  while (inFlight.size) await Promise.all([...inFlight]);
}
