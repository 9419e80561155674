import { expect } from 'chai';
import {
  ConfigError,
  IN_PROCESS_BUS,
  NO_BUS,
  createBus,
  withoutBus,
  createLogger,
  loadConfig,
  serviceConfigSchema,
  testTrustKeys,
} from '../src';

const VALID = {
  DB_URL: 'sqlite::memory:',
  SVC_TRUST_JWKS: testTrustKeys().jwks,
  KAFKA_BROKERS: 'kafka-0:9092,kafka-1:9092',
};

/** The variables a refused configuration names, one per problem line of its ConfigError. */
function refused(env: Record<string, unknown>): string[] {
  try {
    loadConfig(serviceConfigSchema, env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return [...(error as Error).message.matchAll(/^ {2}(\w+):/gm)].map((match) => match[1] as string).sort();
  }
  throw new Error('the configuration was accepted');
}

describe('kit.config: a deployable refuses unsafe configuration', () => {
  it('refuses to start without KAFKA_BROKERS, naming it: no value of the environment selects the in-process bus', () => {
    const { KAFKA_BROKERS: _brokers, ...withoutBrokers } = VALID;
    expect(refused(withoutBrokers)).to.deep.equal(['KAFKA_BROKERS']);
    for (const blank of ['', '  ', ' , '])
      expect(refused({ ...VALID, KAFKA_BROKERS: blank }), JSON.stringify(blank)).to.deep.equal(['KAFKA_BROKERS']);
    expect(loadConfig(serviceConfigSchema, VALID).KAFKA_BROKERS).to.equal(VALID.KAFKA_BROKERS);
  });

  it('gives the in-process bus only to the stack’s explicit IN_PROCESS_BUS, and Kafka for brokers', async () => {
    const logger = createLogger('config-test', 'silent');
    const embedded = loadConfig(serviceConfigSchema, {
      ...VALID,
      KAFKA_BROKERS: IN_PROCESS_BUS,
      EMBEDDED_BUS_FILE: ':memory:',
    });
    expect(createBus(embedded, logger).kind).to.equal('embedded');
    expect(createBus(loadConfig(serviceConfigSchema, VALID), logger).kind).to.equal('kafka');
    // A one-shot command (migrate, bootstrap) needs no brokers and can open no bus.
    const command = loadConfig(
      serviceConfigSchema,
      withoutBus({ DB_URL: VALID.DB_URL, SVC_TRUST_JWKS: VALID.SVC_TRUST_JWKS }),
    );
    expect(command.KAFKA_BROKERS).to.equal(NO_BUS);
    expect(() => createBus(command, logger)).to.throw(/without a bus/);
  });

  it('refuses a partial SASL setting, naming what is missing, and takes empty values as unset', () => {
    expect(refused({ ...VALID, KAFKA_SASL_MECHANISM: 'scram-sha-512' })).to.deep.equal([
      'KAFKA_SASL_PASSWORD',
      'KAFKA_SASL_USERNAME',
    ]);
    expect(refused({ ...VALID, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'svc' })).to.deep.equal([
      'KAFKA_SASL_PASSWORD',
    ]);
    expect(
      refused({ ...VALID, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: '' }),
    ).to.deep.equal(['KAFKA_SASL_PASSWORD']);
    expect(refused({ ...VALID, KAFKA_SASL_PASSWORD: 'secret' })).to.deep.equal(['KAFKA_SASL_MECHANISM']);
    expect(refused({ ...VALID, KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'secret' })).to.deep.equal([
      'KAFKA_SASL_MECHANISM',
    ]);
    expect(
      refused({ ...VALID, KAFKA_SASL_MECHANISM: 'md5', KAFKA_SASL_USERNAME: 'a', KAFKA_SASL_PASSWORD: 'b' }),
    ).to.deep.equal(['KAFKA_SASL_MECHANISM']);
    const complete = { KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 's' };
    expect(loadConfig(serviceConfigSchema, { ...VALID, ...complete })).to.include(complete);
    const none = loadConfig(serviceConfigSchema, { ...VALID, KAFKA_SASL_MECHANISM: '', KAFKA_SASL_USERNAME: '' });
    expect(none.KAFKA_SASL_MECHANISM).to.equal(undefined);
  });

  it('reads DB_POOL_SIZE and DB_MIGRATE through the schema: a bad value is an error naming it, never NaN', () => {
    expect(loadConfig(serviceConfigSchema, VALID)).to.include({ DB_POOL_SIZE: 10, DB_MIGRATE: 'auto' });
    expect(loadConfig(serviceConfigSchema, { ...VALID, DB_POOL_SIZE: '25', DB_MIGRATE: 'skip' })).to.include({
      DB_POOL_SIZE: 25,
      DB_MIGRATE: 'skip',
    });
    for (const bad of ['ten', '0', '2.5', ''])
      expect(refused({ ...VALID, DB_POOL_SIZE: bad }), bad).to.deep.equal(['DB_POOL_SIZE']);
    expect(refused({ ...VALID, DB_MIGRATE: 'no' })).to.deep.equal(['DB_MIGRATE']);
  });
});
