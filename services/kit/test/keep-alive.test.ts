import { expect } from 'chai';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepConnectionsAlive } from '../src/http/keep-alive';

describe('keepConnectionsAlive', () => {
  it('keeps idle connections longer than the proxies in front, and tells the client so', async () => {
    const server = keepConnectionsAlive(
      http.createServer((_request, response) => response.end('ok')),
      65_000,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      expect([server.keepAliveTimeout, server.headersTimeout]).to.deep.equal([65_000, 66_000]);
      const agent = new http.Agent({ keepAlive: true });
      const header = await new Promise<string>((resolve, reject) => {
        http
          .get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { agent }, (response) => {
            response.resume();
            resolve(String(response.headers['keep-alive']));
          })
          .on('error', reject);
      });
      agent.destroy();
      expect(header).to.equal('timeout=65');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
