import { expect } from 'chai';
import { DomainError } from '@svc/kit';
import { checkedEndpointUrl } from '../src/domain/webhooks/endpoint';

const secure = { allowInsecure: false };

async function refusal(url: string, policy = secure): Promise<DomainError> {
  try {
    await checkedEndpointUrl(url, policy);
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error(`${url} was accepted`);
}

/** The SSRF guard at registration (docs/partner-webhooks.md). */
describe('partner webhook URLs', () => {
  const nonPublic = [
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://172.16.0.1/hook',
    'https://192.168.1.10/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[fd00::1]/hook',
    'https://[fe80::1]/hook',
    'https://0.0.0.0/hook',
    'https://localhost/hook',
  ];
  for (const url of nonPublic)
    it(`refuses ${url}, naming url`, async () => {
      const error = await refusal(url);
      expect(error.code).to.equal('BAD_USER_INPUT');
      expect(error.details.field).to.equal('url');
      expect(error.message).to.include('non-public address');
    });

  for (const [url, says] of [
    ['http://93.184.215.14/hook', 'https'],
    ['ftp://93.184.215.14/hook', 'https'],
    ['not a url', 'absolute URL'],
    ['https://user:pass@93.184.215.14/hook', 'credentials'],
  ] as const)
    it(`refuses ${url} (${says})`, async () => {
      const error = await refusal(url);
      expect(error.details.field).to.equal('url');
      expect(error.message).to.include(says);
    });

  it('accepts an https URL naming a public address, normalised', async () => {
    expect(await checkedEndpointUrl('  https://93.184.215.14:8443/hooks/partner?x=1 ', secure)).to.equal(
      'https://93.184.215.14:8443/hooks/partner?x=1',
    );
    expect(await checkedEndpointUrl('https://[2606:4700::1]/hook', secure)).to.equal('https://[2606:4700::1]/hook');
  });

  it('accepts http and loopback with the test-only setting', async () => {
    const insecure = { allowInsecure: true };
    expect(await checkedEndpointUrl('http://127.0.0.1:4567/hook', insecure)).to.equal('http://127.0.0.1:4567/hook');
    expect(await checkedEndpointUrl('http://localhost:4567/hook', insecure)).to.equal('http://localhost:4567/hook');
  });
});
