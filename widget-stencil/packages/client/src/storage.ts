/**
 * Where the client keeps the visitor's refresh token (the only thing it ever stores). Injected so a page can choose;
 * the client writes only after the visitor opened the widget or the page identified them (README: storage policy).
 */
export interface TokenStorage {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

/** Kept in this page only: gone on reload. For tests, and for pages that want no persistence at all. */
export function memoryStorage(): TokenStorage {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => void values.set(key, value),
    remove: (key) => void values.delete(key),
  };
}

/** Minimal shape of the Web Storage API (`window.localStorage`). */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * `localStorage` (or the given Web Storage). A storage that throws (Safari private mode, blocked third-party
 * storage in an iframe, quota) degrades to the page's memory instead of breaking the widget.
 */
export function localStorageAdapter(storage?: WebStorageLike): TokenStorage {
  const fallback = memoryStorage();
  const target = (): WebStorageLike | undefined => {
    if (storage) return storage;
    try {
      return (globalThis as { localStorage?: WebStorageLike }).localStorage;
    } catch {
      return undefined;
    }
  };
  return {
    get(key) {
      try {
        const found = target()?.getItem(key);
        if (found !== undefined && found !== null) return found;
      } catch {
        // fall through to the memory copy
      }
      return fallback.get(key);
    },
    set(key, value) {
      fallback.set(key, value);
      try {
        target()?.setItem(key, value);
      } catch {
        // kept in memory only
      }
    },
    remove(key) {
      fallback.remove(key);
      try {
        target()?.removeItem(key);
      } catch {
        // nothing stored there
      }
    },
  };
}
