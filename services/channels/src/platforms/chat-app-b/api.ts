import { PlatformCallError, type PlatformError } from '../adapter';
import { callPlatform } from '../platform-http';

/**
 * The Telegram Bot API's answer envelope (core.telegram.org/bots/api#making-requests): `ok` true with a `result`, or
 * false with `error_code`, `description` and sometimes `parameters` (`retry_after` seconds on 429,
 * `migrate_to_chat_id` when a group became a supergroup).
 */
interface TelegramEnvelope {
  ok?: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** Calls `POST <base>/bot<token>/<method>` with a JSON body (the Bot API takes JSON, form or multipart). */
export class TelegramApi {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async call<T>(token: string, method: string, params: object = {}): Promise<T> {
    const response = await callPlatform(
      `${this.baseUrl}/bot${token}/${method}`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) },
      this.timeoutMs,
    );
    let envelope: TelegramEnvelope | undefined;
    try {
      envelope = JSON.parse(response.text) as TelegramEnvelope;
    } catch {
      envelope = undefined;
    }
    if (envelope?.ok === true && response.status < 300) return envelope.result as T;
    throw new PlatformCallError(classifyTelegramError(response.status, envelope));
  }

  /** The URL of a file `getFile` resolved: `<base>/file/bot<token>/<file_path>` (valid for at least an hour). */
  fileUrl(token: string, filePath: string): string {
    return `${this.baseUrl}/file/bot${token}/${filePath}`;
  }
}

/**
 * Telegram's errors by its own rules: 429 waits `retry_after` then retries; 5xx (and a body that is not the envelope)
 * is the platform's fault, retried; 401 is a revoked or wrong bot token (reauthorise); 400 (chat not found, bad
 * request) and 403 (bot blocked by the user, kicked) are permanent. Telegram warns that `error_code` values "are
 * subject to change", so the HTTP status decides when the two disagree.
 */
export function classifyTelegramError(httpStatus: number, envelope: TelegramEnvelope | undefined): PlatformError {
  const code = envelope?.error_code ?? httpStatus;
  const description = envelope?.description ?? `HTTP ${httpStatus}`;
  const retryAfter = envelope?.parameters?.retry_after;
  if (code === 429 || httpStatus === 429) {
    return {
      transient: true,
      code: '429',
      message: description,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter * 1000 } : {}),
    };
  }
  if (code >= 500 || httpStatus >= 500 || !envelope) {
    return { transient: true, code: envelope ? String(code) : `http_${httpStatus}`, message: description };
  }
  if (code === 401 || httpStatus === 401) {
    return { transient: false, code: '401', message: description, reauthorize: true };
  }
  const migrated = envelope.parameters?.migrate_to_chat_id;
  return {
    transient: false,
    code: String(code),
    message: migrated !== undefined ? `${description} (the group moved to chat ${migrated})` : description,
  };
}
