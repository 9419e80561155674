import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InboundRequest } from '@svc/channels/dist/src/platforms/adapter';

/**
 * A local stand-in for our inbound route in adapter tests: records what a fake platform delivers, as the route would
 * hand it to an adapter, and answers `status` (200 unless a test changes it).
 */
export interface RecordingEndpoint {
  url: string;
  requests: InboundRequest[];
  status: number;
  close(): Promise<void>;
}

export async function recordingEndpoint(path = '/channels/in/test'): Promise<RecordingEndpoint> {
  const requests: InboundRequest[] = [];
  const endpoint: RecordingEndpoint = { url: '', requests, status: 200, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
      requests.push({
        method: req.method === 'GET' ? 'GET' : 'POST',
        headers,
        query: {},
        rawBody: Buffer.concat(chunks),
      });
      res.writeHead(endpoint.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  endpoint.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return endpoint;
}
