import pino, { type Logger } from 'pino';
import { logFields } from './tracing/log-fields';

export type { Logger };

/**
 * JSON logs with the service name on every line, and the trace and request of the work being done (`logFields`).
 * Never log secrets or personal data.
 */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    mixin: logFields,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['*.password', '*.secret', '*.key', '*.token', '*.authorization'], censor: '[redacted]' },
  });
}
