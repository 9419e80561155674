import { expect } from 'chai';
import {
  connectToHost,
  connectToWidget,
  type HostToWidgetMessage,
  type MessageReceiver,
  type MessageTarget,
  type WidgetToHostMessage,
} from '../src/index.js';
import { deliver, FakeWindow, settled, windowPair } from './fake-window.js';

const HOST = 'http://127.0.0.1:5173';
const WIDGET = 'http://localhost:4000';
const user = { jwt: 'eyJhbGciOiJIUzI1NiJ9.jwt' };

// Compile-time: a real DOM Window is what both sides of a channel take.
const windowFits: [Window] extends [MessageReceiver & MessageTarget] ? true : false = true;

function connectBoth() {
  const { host, widget } = windowPair(HOST, WIDGET);
  const hostReceived: WidgetToHostMessage[] = [];
  const widgetReceived: HostToWidgetMessage[] = [];
  const toWidget = connectToWidget({
    window: host,
    widget,
    widgetOrigin: WIDGET,
    onMessage: (message) => hostReceived.push(message),
  });
  const connectWidget = () =>
    connectToHost({ window: widget, host, hostOrigin: HOST, onMessage: (message) => widgetReceived.push(message) });
  return { host, widget, toWidget, connectWidget, hostReceived, widgetReceived };
}

describe('connectToWidget / connectToHost', () => {
  it('takes a DOM Window on both sides', () => expect(windowFits).to.equal(true));

  it('queues what the loader sends before ready and posts it in order once the widget is ready', async () => {
    const { widget, toWidget, connectWidget, hostReceived, widgetReceived } = connectBoth();
    toWidget.send('svc:identify:v1', { user });
    toWidget.send('svc:prefill:v1', { prefill: { name: 'Ada' } });
    await settled();
    expect(widget.posts).to.deep.equal([]);

    connectWidget();
    await settled();
    expect(hostReceived).to.deep.equal([{ version: 1, type: 'svc:widget:ready:v1' }]);
    expect(widgetReceived).to.deep.equal([
      { version: 1, type: 'svc:identify:v1', payload: { user } },
      { version: 1, type: 'svc:prefill:v1', payload: { prefill: { name: 'Ada' } } },
    ]);
  });

  it('posts at once after ready, in both directions', async () => {
    const { toWidget, connectWidget, hostReceived, widgetReceived } = connectBoth();
    const toHost = connectWidget();
    await settled();
    toWidget.send('svc:shutdown:v1');
    toHost.send('svc:widget:open:v1');
    toHost.send('svc:widget:resize:v1', { width: 376, height: 620 });
    toHost.send('svc:widget:close:v1');
    await settled();
    expect(widgetReceived).to.deep.equal([{ version: 1, type: 'svc:shutdown:v1' }]);
    expect(hostReceived.map((message) => message.type)).to.deep.equal([
      'svc:widget:ready:v1',
      'svc:widget:open:v1',
      'svc:widget:resize:v1',
      'svc:widget:close:v1',
    ]);
  });

  it('posts only to the other side’s origin, never to "*"', async () => {
    const { host, widget, toWidget, connectWidget } = connectBoth();
    connectWidget();
    await settled();
    toWidget.send('svc:shutdown:v1');
    expect(widget.posts.map((post) => post.targetOrigin)).to.deep.equal([WIDGET]);
    expect(host.posts.map((post) => post.targetOrigin)).to.deep.equal([HOST]);
  });

  it('takes an origin given as a URL on it (data-origin may carry a path)', async () => {
    const { host, widget } = windowPair(HOST, WIDGET);
    const received: WidgetToHostMessage[] = [];
    connectToWidget({ window: host, widget, widgetOrigin: `${WIDGET}/widget/`, onMessage: (m) => received.push(m) });
    connectToHost({ window: widget, host, hostOrigin: `${HOST}/shop/cart?x=1`, onMessage: () => undefined });
    await settled();
    expect(received).to.have.length(1);
    expect(host.posts[0]!.targetOrigin).to.equal(HOST);
  });

  for (const origin of ['*', 'null', 'file:///index.html', 'data:text/html,hi', '']) {
    it(`refuses ${JSON.stringify(origin)} as the other side’s origin`, () => {
      const { host, widget } = windowPair(HOST, WIDGET);
      const onMessage = () => undefined;
      expect(() => connectToWidget({ window: host, widget, widgetOrigin: origin, onMessage })).to.throw(TypeError);
      expect(() => connectToHost({ window: widget, host, hostOrigin: origin, onMessage })).to.throw(TypeError);
    });
  }

  it('ignores messages to the widget from another origin or another window', async () => {
    const { host, widget, connectWidget, widgetReceived } = connectBoth();
    connectWidget();
    const shutdown = { version: 1, type: 'svc:shutdown:v1' };
    deliver(widget, shutdown, new FakeWindow('https://evil.example')); // a foreign page
    deliver(widget, shutdown, new FakeWindow(HOST)); // another window of the host's origin, not the parent
    deliver(widget, shutdown, host, 'https://evil.example'); // the parent, navigated to another origin
    await settled();
    expect(widgetReceived).to.deep.equal([]);
    deliver(widget, shutdown, host);
    await settled();
    expect(widgetReceived).to.deep.equal([shutdown]);
  });

  it('ignores messages to the loader from another origin, another window, or not of the protocol', async () => {
    const { host, widget, hostReceived } = connectBoth();
    const ready = { version: 1, type: 'svc:widget:ready:v1' };
    deliver(host, ready, new FakeWindow('https://evil.example'));
    deliver(host, ready, new FakeWindow(WIDGET)); // another frame on the widget's origin
    deliver(host, ready, widget, 'https://evil.example'); // the iframe, navigated to another origin
    deliver(host, { version: 1, type: 'svc:widget:resize:v1', payload: { width: NaN, height: 1 } }, widget);
    deliver(host, { version: 1, type: 'svc:identify:v1', payload: { user } }, widget); // wrong direction
    await settled();
    expect(hostReceived).to.deep.equal([]);
  });

  it('a forged ready from elsewhere does not release the queue', async () => {
    const { host, widget, toWidget } = connectBoth();
    toWidget.send('svc:identify:v1', { user });
    deliver(host, { version: 1, type: 'svc:widget:ready:v1' }, new FakeWindow('https://evil.example'));
    await settled();
    expect(widget.posts).to.deep.equal([]);
  });

  it('stops listening and sending when closed, dropping the queue', async () => {
    const { widget, toWidget, connectWidget, hostReceived, widgetReceived } = connectBoth();
    toWidget.send('svc:identify:v1', { user });
    toWidget.close();
    toWidget.send('svc:shutdown:v1');
    const toHost = connectWidget();
    await settled();
    expect(hostReceived).to.deep.equal([]);
    expect(widget.posts).to.deep.equal([]);

    toHost.close();
    toHost.send('svc:widget:open:v1');
    deliver(widget, { version: 1, type: 'svc:shutdown:v1' }, widget.peer!);
    await settled();
    expect(widgetReceived).to.deep.equal([]);
  });

  it('hands a reloaded widget’s second ready to the loader, without replaying the queue', async () => {
    const { widget, toWidget, connectWidget, hostReceived } = connectBoth();
    toWidget.send('svc:shutdown:v1');
    connectWidget().close();
    await settled();
    connectWidget();
    await settled();
    expect(hostReceived.map((message) => message.type)).to.deep.equal(['svc:widget:ready:v1', 'svc:widget:ready:v1']);
    expect(widget.posts).to.have.length(1);
  });
});
