import { z } from 'zod';

const optionalUrl = z
  .url({ protocol: /^https?$/ })
  .or(z.literal(''))
  .optional();

/**
 * The standard `OTEL_*` variables that decide whether tracing is on. The SDK reads the rest itself, by the
 * specification (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER, …).
 */
export const tracingConfigSchema = z.object({
  OTEL_SDK_DISABLED: z.stringbool().default(false),
  /** Comma-separated: `otlp`, `console`, `zipkin` or `none`. */
  OTEL_TRACES_EXPORTER: z.string().default(''),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
});

export type TracingConfig = z.infer<typeof tracingConfigSchema>;

/**
 * Off unless configured: on when an OTLP endpoint or a traces exporter (other than `none`) is set, and the SDK is not
 * disabled. Off, the SDK is never loaded (docs/decisions/0068).
 */
export function tracingEnabled(config: TracingConfig): boolean {
  if (config.OTEL_SDK_DISABLED) return false;
  const exporters = config.OTEL_TRACES_EXPORTER.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (exporters.length) return !exporters.includes('none');
  return Boolean(config.OTEL_EXPORTER_OTLP_ENDPOINT || config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
