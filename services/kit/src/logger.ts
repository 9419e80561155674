import pino, { type DestinationStream, type Logger } from 'pino';
import { logFields } from './tracing/log-fields';

export type { Logger };

/** Field names whose values are secret in every service. */
const SECRET_LOG_KEYS = ['password', 'secret', 'key', 'token', 'authorization'] as const;

/** How deep below the logged object a secret field is still found (`{ channel: { credentials: { botToken } } }`). */
const REDACT_DEPTH = 3;

/** Pino `redact` paths for each key at the top of a logged object and up to REDACT_DEPTH levels below it. */
export function redactPaths(keys: readonly string[]): string[] {
  return keys.flatMap((key) => Array.from({ length: REDACT_DEPTH + 1 }, (_, depth) => `${'*.'.repeat(depth)}${key}`));
}

export interface LoggerOptions {
  /** The service's own secret field names (e.g. the channels service's platform credentials), redacted like `token`. */
  secretKeys?: readonly string[];
  /** Where lines go: `process.stdout` unless given (so a test capturing stdout reads every service's lines). */
  destination?: DestinationStream;
}

/**
 * JSON logs with the service name on every line, and the trace and request of the work being done (`logFields`).
 * Never log secrets or personal data: the secret field names are redacted wherever they appear in a logged object.
 */
export function createLogger(service: string, level = 'info', options: LoggerOptions = {}): Logger {
  const keys = [...new Set([...SECRET_LOG_KEYS, ...(options.secretKeys ?? [])])];
  return pino(
    {
      level,
      base: { service },
      mixin: logFields,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: redactPaths(keys), censor: '[redacted]' },
    },
    options.destination ?? process.stdout,
  );
}
