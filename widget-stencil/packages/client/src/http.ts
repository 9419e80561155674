import { WidgetApiError } from './errors.js';

export type Fetch = typeof fetch;

export interface CallOptions {
  method?: string;
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface CallAnswer<T> {
  status: number;
  headers: Headers;
  /** `undefined` for 204 and 304. */
  body: T | undefined;
}

/** `{apiUrl}/api/web`, without a doubled slash. */
export function apiBase(apiUrl: string): string {
  return `${apiUrl.replace(/\/+$/, '')}/api/web`;
}

/** One JSON call to widget-api; a status other than 2xx or 304 throws a {@link WidgetApiError}. */
export async function call<T>(fetcher: Fetch, url: string, options: CallOptions = {}): Promise<CallAnswer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let response: Response;
  try {
    response = await fetcher(url, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    throw networkError(error);
  }
  if (response.status === 304 || response.status === 204)
    return { status: response.status, headers: response.headers, body: undefined };
  const text = await response.text().catch(() => '');
  if (!response.ok) throw errorOf(response.status, response.headers, text);
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as T) : undefined };
}

/** The error a refused answer stands for (its `{ error }` body when it has one). */
export function errorOf(status: number, headers: { get(name: string): string | null }, text: string): WidgetApiError {
  let error: { code?: unknown; message?: unknown; field?: unknown; reason?: unknown } = {};
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error ?? {};
  } catch {
    // not a JSON error body (a proxy's page)
  }
  const retryAfter = Number(headers.get('retry-after'));
  return new WidgetApiError(
    status,
    typeof error.code === 'string' ? error.code : `HTTP_${status}`,
    typeof error.message === 'string' ? error.message : `widget-api answered ${status}`,
    {
      field: typeof error.field === 'string' ? error.field : undefined,
      reason: typeof error.reason === 'string' ? error.reason : undefined,
      retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    },
  );
}

export function networkError(error: unknown): WidgetApiError {
  if (error instanceof WidgetApiError) return error;
  const aborted = (error as { name?: unknown } | null)?.name === 'AbortError';
  return new WidgetApiError(
    0,
    aborted ? 'ABORTED' : 'NETWORK_ERROR',
    error instanceof Error ? error.message : String(error),
  );
}
