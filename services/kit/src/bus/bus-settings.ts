import { z } from 'zod';

/**
 * The embedded stack's choice of the in-process bus, passed as KAFKA_BROKERS. A symbol, so no environment variable can
 * hold it: a deployable without brokers refuses to start instead of publishing into a log nobody reads
 * (docs/decisions/0063-production-refuses-unsafe-configuration.md).
 */
export const IN_PROCESS_BUS: unique symbol = Symbol('in-process bus');

/**
 * KAFKA_BROKERS of a one-shot command that never opens a bus (`main.js migrate`, bootstrap, the key tools): it needs
 * no brokers, and `createBus` refuses it.
 */
export const NO_BUS: unique symbol = Symbol('no bus');

/** The settings of a command that opens no bus: whatever KAFKA_BROKERS says, it is not asked for. */
export function withoutBus<E extends Readonly<Record<string, unknown>>>(env: E): E & { KAFKA_BROKERS: typeof NO_BUS } {
  return { ...env, KAFKA_BROKERS: NO_BUS };
}

const BROKERS_REQUIRED =
  'required: comma-separated Kafka brokers (host:port); the in-process bus is for the embedded stack (npm start) only';

/** The brokers of a KAFKA_BROKERS value, blanks dropped. */
export function brokerList(value: string): string[] {
  return value
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
}

export const kafkaBrokersSchema = z.union([
  z.custom<typeof IN_PROCESS_BUS | typeof NO_BUS>((value) => value === IN_PROCESS_BUS || value === NO_BUS),
  z.string({ error: BROKERS_REQUIRED }).refine((value) => brokerList(value).length > 0, { error: BROKERS_REQUIRED }),
]);

/** An optional setting where an empty value (a chart rendering `""`) counts as unset. */
export function optionalSetting<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' ? undefined : value), schema.optional());
}

interface KafkaSecurity {
  KAFKA_SASL_MECHANISM?: string | undefined;
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
}

/** SASL is all or nothing: a partial setting is a start-up error naming what is missing, never silently dropped. */
export function checkKafkaSecurity(config: KafkaSecurity, ctx: z.RefinementCtx): void {
  const credentials = ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const;
  if (config.KAFKA_SASL_MECHANISM) {
    for (const name of credentials) {
      if (!config[name])
        ctx.addIssue({ code: 'custom', path: [name], message: 'required when KAFKA_SASL_MECHANISM is set' });
    }
    return;
  }
  const given = credentials.filter((name) => config[name]);
  if (given.length) {
    ctx.addIssue({
      code: 'custom',
      path: ['KAFKA_SASL_MECHANISM'],
      message: `required when ${given.join(' / ')} is set (plain, scram-sha-256 or scram-sha-512)`,
    });
  }
}
