import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '@svc/kit';
import { PLATFORM_SECRET_LOG_KEYS } from '../src/platforms';

describe('Channels logs: platform credentials are redacted wherever they sit in a logged object', () => {
  const capture = () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    return { lines, logger: createLogger('channels', 'debug', { secretKeys: PLATFORM_SECRET_LOG_KEYS, destination }) };
  };

  it('covers each kind’s credential fields, the webhook secret and the protocols’ secret names, at any depth', () => {
    const { lines, logger } = capture();
    const values = {
      botToken: '123456789:AAE-bot-token-value',
      authToken: 'viber-auth-token-value',
      accessToken: 'EAA-access-token-value',
      pageAccessToken: 'EAA-page-token-value',
      appSecret: '0123456789abcdef0123456789abcdef',
      webhookSecret: 'webhook-secret-value',
      secret_token: 'secret-token-value',
      verify_token: 'verify-token-value',
    };
    logger.debug(values, 'flat');
    logger.debug({ channel: { credentials: { ...values } } }, 'nested');
    logger.debug({ call: { body: { setWebhook: { ...values } } } }, 'deep');
    expect(lines).to.have.length(3);
    for (const value of Object.values(values)) expect(lines.join('\n')).not.to.contain(value);
  });

  it('derives the list from the adapters’ credential schemas', () => {
    for (const key of ['botToken', 'authToken', 'accessToken', 'pageAccessToken', 'appSecret', 'webhookSecret'])
      expect(PLATFORM_SECRET_LOG_KEYS).to.include(key);
  });
});
