import { expect } from 'chai';
import { Readable } from 'node:stream';
import getRawBody from 'raw-body';
import { bodyErrorAnswer } from '../src/http/body-errors';

async function failureOf(stream: Readable, options: getRawBody.Options = {}): Promise<unknown> {
  try {
    await getRawBody(stream, { encoding: 'utf8', ...options });
  } catch (error) {
    return error;
  }
  throw new Error('the body was read');
}

describe('widget-api body read failures', () => {
  it('a request destroyed before its body was read is the client gone (400, not a server failure)', async () => {
    const request = new Readable({ read() {} });
    request.destroy();
    const answer = bodyErrorAnswer(await failureOf(request), request);
    expect(answer).to.deep.include({ status: 400, clientGone: true });
  });

  it('a request aborted while its body was read is the client gone too', async () => {
    const request = new Readable({ read() {} });
    request.push('{"a"');
    const failure = failureOf(request, { length: 100 });
    request.emit('aborted');
    expect(bodyErrorAnswer(await failure, request)).to.deep.include({ status: 400, clientGone: true });
  });

  it('a body over the limit is 413, and an error that is not a body failure is left alone', async () => {
    const request = Readable.from(['x'.repeat(100)]);
    expect(bodyErrorAnswer(await failureOf(request, { limit: 10 }), request)).to.deep.include({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(bodyErrorAnswer(new Error('boom'), request)).to.equal(undefined);
  });
});
