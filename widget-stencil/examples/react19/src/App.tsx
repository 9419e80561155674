import { useRef, useState, version } from 'react';
import { SvcWidget, type SvcWidgetElement } from '@svc-inbox/widget-react';
import type { VisitorIdentity } from '@svc-inbox/widget-core';

// The page's query string says which integration and backend to use, and who the visitor is (the browser tests set it).
const query = new URLSearchParams(location.search);

export function App() {
  const [events, setEvents] = useState<string[]>([]);
  const [renders, setRenders] = useState(0);
  const widget = useRef<SvcWidgetElement>(null);
  const log = (entry: string) => setEvents((all) => [...all, entry]);
  // Deliberately not memoised: a new object on every render, equal by value, must not identify the visitor again.
  const userJson = query.get('user');
  const user = userJson ? (JSON.parse(userJson) as VisitorIdentity) : undefined;
  return (
    <main>
      <h1>
        React <span id="framework-version">{version}</span> + @svc-inbox/widget-react
      </h1>
      <button id="open-chat" onClick={() => void widget.current?.open()}>
        Open chat
      </button>
      <button id="close-chat" onClick={() => void widget.current?.close()}>
        Close chat
      </button>
      <button id="re-render" onClick={() => setRenders((count) => count + 1)}>
        Re-render ({renders})
      </button>
      <ol id="events">
        {events.map((entry, index) => (
          <li key={index}>{entry}</li>
        ))}
      </ol>
      <SvcWidget
        ref={widget}
        publicKey={query.get('publicKey') ?? undefined}
        api={query.get('api') ?? undefined}
        user={user}
        className="support-widget"
        style={{ outline: '1px dashed rebeccapurple' }}
        onResize={({ width, height }) => log(`resize ${width}x${height}`)}
        onOpen={() => log('open')}
        onClose={() => log('close')}
      />
    </main>
  );
}
