#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig, baseConfigSchema } from '../config';
import { IN_PROCESS_BUS, checkKafkaSecurity } from '../bus/bus-settings';
import { createLogger } from '../logger';
import { createBus } from '../bus/create-bus';
import { EmbeddedBus } from '../bus/embedded-bus';
import { KafkaBus } from '../bus/kafka-bus';
import { listDeadLetters, redriveDeadLetters } from '../bus/dead-letter-tool';

const USAGE = `usage: dlq list --topic <topic> [--limit <n>]
       dlq redrive --topic <topic> [--id <event id>]...

Lists or re-drives the dead letters of <topic> (as services name it, without KAFKA_TOPIC_PREFIX). Reads KAFKA_BROKERS
and KAFKA_* like a service; without brokers, the embedded bus's log in EMBEDDED_BUS_FILE (default .data/bus.sqlite;
a stack started with SVC_DATA_DIR=<dir> keeps it in <dir>/bus.sqlite).`;

const cliConfigSchema = baseConfigSchema
  .pick({
    KAFKA_CLIENT_ID: true,
    KAFKA_SSL: true,
    KAFKA_SASL_MECHANISM: true,
    KAFKA_SASL_USERNAME: true,
    KAFKA_SASL_PASSWORD: true,
    KAFKA_TOPIC_PREFIX: true,
    KAFKA_SESSION_TIMEOUT_MS: true,
    EMBEDDED_BUS_FILE: true,
    BUS_RETRY_ATTEMPTS: true,
    BUS_RETRY_BACKOFF_MS: true,
    LOG_LEVEL: true,
  })
  // An operator tool for either bus: without brokers it reads the embedded stack's log, by its own explicit choice.
  .extend({
    KAFKA_BROKERS: z
      .string()
      .transform((value) => value.trim() || IN_PROCESS_BUS)
      .default(IN_PROCESS_BUS),
  })
  .superRefine(checkKafkaSecurity);

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      topic: { type: 'string' },
      id: { type: 'string', multiple: true },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command] = positionals;
  if (values.help || !values.topic || (command !== 'list' && command !== 'redrive')) {
    process.stderr.write(USAGE + '\n');
    return values.help ? 0 : 2;
  }
  const config = loadConfig(cliConfigSchema, { LOG_LEVEL: 'warn', ...process.env });
  const logger = createLogger('dlq', config.LOG_LEVEL);
  const created = createBus(config, logger);
  // A running stack owns the embedded log; this tool only reads and appends to it.
  const bus =
    created instanceof EmbeddedBus
      ? new EmbeddedBus({ file: config.EMBEDDED_BUS_FILE, logger, owner: false })
      : created;
  if (!(bus instanceof EmbeddedBus || bus instanceof KafkaBus)) throw new Error('this bus cannot be read back');
  await bus.start();
  try {
    const topic = config.KAFKA_TOPIC_PREFIX + values.topic;
    if (command === 'list') {
      const letters = await listDeadLetters(bus, topic, values.limit ? Number(values.limit) : undefined);
      for (const { record: _record, ...letter } of letters) process.stdout.write(JSON.stringify(letter) + '\n');
      process.stderr.write(`${letters.length} dead letter(s) on ${topic}\n`);
    } else {
      const letters = await redriveDeadLetters(bus, topic, values.id);
      for (const letter of letters) process.stdout.write(`redriven ${letter.eventId} to ${letter.topic}\n`);
      process.stderr.write(`${letters.length} dead letter(s) redriven\n`);
    }
    return 0;
  } finally {
    await bus.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`dlq: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
