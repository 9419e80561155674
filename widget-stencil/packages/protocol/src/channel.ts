import {
  envelope,
  parseHostToWidget,
  parseWidgetToHost,
  type HostToWidgetMessage,
  type HostToWidgetPayloads,
  type PayloadArgs,
  type WidgetToHostMessage,
  type WidgetToHostPayloads,
} from './messages.js';

/** What a channel needs of the other side's window (a `Window` fits; tests pass a fake). */
export interface MessageTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

export interface MessageEventLike {
  data: unknown;
  origin: string;
  source: unknown;
}

/** What a channel needs of its own window, where the other side's messages arrive. */
export interface MessageReceiver {
  addEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
}

export interface Channel<Payloads> {
  send<Type extends keyof Payloads & string>(type: Type, ...payload: PayloadArgs<Payloads, Type>): void;
  /** Stops listening and drops what is still queued; later sends do nothing. */
  close(): void;
}

export interface WidgetChannelOptions {
  /** The host page's window. */
  window: MessageReceiver;
  /** The iframe's `contentWindow`: the only source listened to. */
  widget: MessageTarget;
  /** The widget's origin (or any URL on it, e.g. `data-origin`): the only origin listened to and posted to. */
  widgetOrigin: string;
  onMessage(message: WidgetToHostMessage): void;
}

export interface HostChannelOptions {
  /** The iframe's own window. */
  window: MessageReceiver;
  /** `window.parent`: the only source listened to. */
  host: MessageTarget;
  /** The host page's origin (or any URL on it): the only origin listened to and posted to. */
  hostOrigin: string;
  onMessage(message: HostToWidgetMessage): void;
}

/**
 * The loader's side. Messages sent before the widget's `svc:widget:ready:v1` are queued and posted, in order, when it
 * arrives. Create it as soon as the iframe is in the document (its `contentWindow` stays the same across loads).
 */
export function connectToWidget(options: WidgetChannelOptions): Channel<HostToWidgetPayloads> {
  const origin = exactOrigin(options.widgetOrigin);
  const post = (message: object) => options.widget.postMessage(message, origin);
  let queue: object[] | null = [];
  const stop = listen(options.window, options.widget, origin, (data) => {
    const message = parseWidgetToHost(data);
    if (!message) return;
    if (message.type === 'svc:widget:ready:v1' && queue) {
      const queued = queue;
      queue = null;
      queued.forEach(post);
    }
    options.onMessage(message);
  });
  return channel(stop, (message) => (queue ? queue.push(message) : post(message)));
}

/**
 * The widget's side. It listens first, then announces `svc:widget:ready:v1`, so nothing the loader queued is lost;
 * messages arriving before the widget can act on them are its own `onMessage`'s to hold.
 */
export function connectToHost(options: HostChannelOptions): Channel<WidgetToHostPayloads> {
  const origin = exactOrigin(options.hostOrigin);
  const stop = listen(options.window, options.host, origin, (data) => {
    const message = parseHostToWidget(data);
    if (message) options.onMessage(message);
  });
  const toHost = channel<WidgetToHostPayloads>(stop, (message) => options.host.postMessage(message, origin));
  toHost.send('svc:widget:ready:v1');
  return toHost;
}

// A real origin, never '*' (new URL throws on it) nor an opaque one ('null' is every sandboxed frame's and data:
// document's): the loader's messages carry identity proofs, which must reach only the other side.
function exactOrigin(url: string): string {
  const origin = new URL(url).origin;
  if (origin === 'null') throw new TypeError(`opaque origin: ${url}`);
  return origin;
}

/** Hands `receive` the data of messages from exactly `peer` at exactly `origin`; everything else is ignored. */
function listen(own: MessageReceiver, peer: MessageTarget, origin: string, receive: (data: unknown) => void) {
  const listener = (event: MessageEventLike) => {
    if (event.source === peer && event.origin === origin) receive(event.data);
  };
  own.addEventListener('message', listener);
  return () => own.removeEventListener('message', listener);
}

function channel<Payloads>(stop: () => void, deliver: (message: object) => void): Channel<Payloads> {
  let open = true;
  return {
    send(type, ...[payload]) {
      if (open) deliver(envelope(type, payload));
    },
    close() {
      open = false;
      stop();
    },
  };
}
