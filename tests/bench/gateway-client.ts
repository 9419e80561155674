import * as http from 'node:http';

/** Root fields of an answer; list results carry `data`. */
export type GatewayData = Record<string, { data?: unknown[] }>;

/**
 * Posts GraphQL operations to the stack's public endpoint with an API key over keep-alive connections; rejects on any
 * answer but 200 without errors, so a bench never times failures; resolves with the answer's `data`.
 */
export function gatewayCaller(url: string, key: string, maxSockets = 4) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return (query: string, variables: Record<string, unknown>) =>
    new Promise<GatewayData>((resolve, reject) => {
      const body = JSON.stringify({ query, variables });
      const request = http.request(
        `${url}/graphql`,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${key}`,
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            if (response.statusCode !== 200 || text.includes('"errors"'))
              reject(new Error(`HTTP ${response.statusCode}: ${text}`));
            else resolve((JSON.parse(text) as { data: GatewayData }).data);
          });
        },
      );
      request.on('error', reject);
      request.end(body);
    });
}

/** GETs a URL over keep-alive connections and drains the answer; rejects on any status but 200. */
export function bareGet(url: string, maxSockets = 16) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent }, (response) => {
          response.resume();
          response.on('end', () =>
            response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode} from ${url}`)),
          );
        })
        .on('error', reject);
    });
}
