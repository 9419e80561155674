import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../src/logger';
import { sendJson, withRawRoutes, type RawRoute } from '../src/http/raw-routes';

describe('withRawRoutes', () => {
  let server: Server;
  let base: string;
  const seen: string[][] = [];

  const routes: RawRoute[] = [
    {
      method: 'POST',
      path: /^\/hooks\/([^/]+)\/?$/,
      handle: async (_request, response, params) => {
        seen.push(params);
        if (params[0] === 'boom') throw new Error('boom');
        if (params[0] === 'aborted') throw Object.assign(new Error('request aborted'), { status: 400 });
        sendJson(response, 202, { id: params[0] }, { 'x-extra': 'yes' });
      },
    },
    {
      method: '*',
      path: /^\/any$/,
      handle: async (request, response) => sendJson(response, 200, { method: request.method }),
    },
  ];

  before(async () => {
    const fallback = (_request: unknown, response: { statusCode: number; end(body: string): void }) => {
      response.statusCode = 299;
      response.end('fallback');
    };
    server = createServer(withRawRoutes(routes, fallback as never, createLogger('test', 'silent')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves a matching method and path itself, with its URI-decoded parameters, ignoring the query string', async () => {
    const response = await fetch(`${base}/hooks/a%20b/?x=1`, { method: 'POST', body: '{}' });
    expect(response.status).to.equal(202);
    expect(response.headers.get('x-extra')).to.equal('yes');
    expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(await response.json()).to.deep.equal({ id: 'a b' });
    expect(seen.at(-1)).to.deep.equal(['a b']);
  });

  it('hands every other request to the fallback (another method, another path)', async () => {
    expect((await fetch(`${base}/hooks/x`)).status).to.equal(299);
    expect((await fetch(`${base}/hooks/x/y`, { method: 'POST' })).status).to.equal(299);
  });

  it('serves every method of a `*` route', async () => {
    for (const method of ['GET', 'POST', 'OPTIONS', 'PUT']) {
      const response = await fetch(`${base}/any?x=1`, { method });
      expect([response.status, await response.json()]).to.deep.equal([200, { method }]);
    }
  });

  it("answers a failure with the error's HTTP status, or 500", async () => {
    const aborted = await fetch(`${base}/hooks/aborted`, { method: 'POST' });
    expect([aborted.status, await aborted.json()]).to.deep.equal([400, { message: 'Bad Request' }]);
    const boom = await fetch(`${base}/hooks/boom`, { method: 'POST' });
    expect([boom.status, await boom.json()]).to.deep.equal([500, { message: 'Internal Server Error' }]);
  });
});
