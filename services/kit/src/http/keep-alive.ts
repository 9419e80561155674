import type { Server } from 'node:http';

/**
 * Keeps idle keep-alive connections open `keepAliveMs` (`HTTP_KEEP_ALIVE_MS`, config.ts says why) and lets a request's
 * headers take a little longer than that: Node requires `headersTimeout` above `keepAliveTimeout`, or a slow
 * request's headers could be cut while the connection is still meant to be alive.
 */
export function keepConnectionsAlive(server: Server, keepAliveMs: number): Server {
  server.keepAliveTimeout = keepAliveMs;
  server.headersTimeout = keepAliveMs + 1000;
  return server;
}
