import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** How many bytes of an answer's body the delivery log keeps. */
export const EXCERPT_BYTES = 500;

export interface PostRequest {
  url: URL;
  /** The checked address to connect to: the connection never resolves the host again (no DNS rebinding). */
  address: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** An HTTP answer (any status: redirects are not followed) or why there was none. */
export type PostResult =
  | { kind: 'answered'; statusCode: number; headers: http.IncomingHttpHeaders; excerpt: string; latencyMs: number }
  | { kind: 'failed'; error: string; latencyMs: number };

/**
 * One POST of a delivery. The socket connects to `address` (a lookup pinned to it, so TLS still checks the
 * certificate against the URL's host name); the whole exchange, body excerpt included, must end within `timeoutMs`.
 * Only the first EXCERPT_BYTES of the body are read.
 */
export function postOnce(request: PostRequest): Promise<PostResult> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  const pinned: LookupFunction = (_hostname, options, callback) => {
    const family = isIP(request.address);
    if (options.all) callback(null, [{ address: request.address, family }]);
    else callback(null, request.address, family);
  };
  const transport = request.url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const settle = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const outgoing = transport.request(
      request.url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body).toString() },
        lookup: pinned,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const answer = () => {
          settle({
            kind: 'answered',
            statusCode: response.statusCode ?? 0,
            headers: response.headers,
            excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
            latencyMs: latencyMs(),
          });
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= EXCERPT_BYTES) answer();
        });
        response.on('end', answer);
        response.on('error', answer);
      },
    );
    const timer = setTimeout(() => {
      settle({ kind: 'failed', error: `timeout after ${request.timeoutMs} ms`, latencyMs: latencyMs() });
      outgoing.destroy();
    }, request.timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      settle({ kind: 'failed', error: error.message.slice(0, 500), latencyMs: latencyMs() }),
    );
    outgoing.end(request.body);
  });
}
