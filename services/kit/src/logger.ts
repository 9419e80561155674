import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON logs with the service name on every line. Never log secrets or personal data. */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['*.password', '*.secret', '*.key', '*.token', '*.authorization'], censor: '[redacted]' },
  });
}
