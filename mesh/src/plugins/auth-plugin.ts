import type { IncomingMessage } from 'node:http';
import { GraphQLError, parse } from 'graphql';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { shouldRenderGraphiQL } from 'graphql-yoga';
import { REQUEST_ID_HEADER, anonymousPrincipal, type Logger, type Principal } from '@svc/kit';
import type { Authenticator } from '../auth/authenticator';
import { authorize, isPublicOnly } from '../auth/authorize';
import type { OperationRule } from '../auth/operations-table';
import type { SignedPrincipals } from '../auth/signed-principals';
import { clientAddress } from '../client-address';
import type { GatewayContext } from '../context';

export interface AuthPluginOptions {
  authenticator: Authenticator;
  signedPrincipals: SignedPrincipals;
  table: Map<string, OperationRule>;
  introspection: boolean;
  logger: Logger;
  graphqlEndpoint: string;
  /** Proxies in front of the gateway whose X-Forwarded-For entries are believed (mesh/src/client-address.ts). */
  trustedProxyHops: number;
  /** GraphiQL is served: a browser's GET for the page passes without credentials (the page runs nothing itself). */
  explorer: boolean;
}

type FetchApi = { Response: typeof Response };

function errorResponse(fetchAPI: FetchApi, status: number, code: string, message: string): Response {
  return new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
    },
  });
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const MAX_ANONYMOUS_BODY = 16 * 1024;

/** Without credentials only a login may pass; decided from the request text alone, before the GraphQL pipeline. */
async function isLoginRequest(request: Request, table: Map<string, OperationRule>): Promise<boolean> {
  if (request.method !== 'POST') return false;
  // Read only a body that says how long it is, and is short: nothing unauthenticated streams into memory.
  const length = Number(request.headers.get('content-length') ?? Number.NaN);
  if (!(length <= MAX_ANONYMOUS_BODY)) return false;
  try {
    const text = await request.clone().text();
    if (text.length > MAX_ANONYMOUS_BODY) return false;
    const body = JSON.parse(text) as { query?: unknown; operationName?: unknown };
    if (typeof body.query !== 'string') return false;
    return isPublicOnly(
      parse(body.query),
      typeof body.operationName === 'string' ? body.operationName : undefined,
      table,
    );
  } catch {
    return false;
  }
}

/**
 * Authentication before parsing (401 for missing, malformed, unknown or revoked credentials, so nothing about the
 * schema can be probed without a credential), then authorization of every root field after parsing and before
 * execution (403 FORBIDDEN naming the missing scope). Requests without credentials may only log in.
 */
export function useAuth(options: AuthPluginOptions): GatewayPlugin {
  const byRequest = new WeakMap<Request, Principal | 'anonymous'>();
  const anonymous = anonymousPrincipal();
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== options.graphqlEndpoint) return;
      if (options.explorer && shouldRenderGraphiQL(request)) return;
      const header = request.headers.get('authorization');
      if (!header) {
        if (!(await isLoginRequest(request, options.table))) {
          return endResponse(
            errorResponse(
              fetchAPI,
              401,
              'UNAUTHENTICATED',
              'credentials are required: Authorization: Bearer <API key or session token>',
            ),
          );
        }
        byRequest.set(request, 'anonymous');
        return;
      }
      const credential = BEARER.exec(header)?.[1];
      if (!credential)
        return endResponse(
          errorResponse(fetchAPI, 401, 'UNAUTHENTICATED', 'Authorization must be "Bearer <API key or session token>"'),
        );
      let principal: Principal | undefined;
      try {
        principal = await options.authenticator.authenticate(credential, request.headers.get('x-svc-org') ?? '');
      } catch (error) {
        if ((error as { forbidden?: boolean }).forbidden)
          return endResponse(errorResponse(fetchAPI, 403, 'FORBIDDEN', (error as Error).message));
        options.logger.error(
          { err: error, request_id: request.headers.get(REQUEST_ID_HEADER) ?? undefined },
          'authentication unavailable',
        );
        return endResponse(
          errorResponse(fetchAPI, 503, 'UNAVAILABLE', 'authentication is temporarily unavailable; retry'),
        );
      }
      if (!principal)
        return endResponse(errorResponse(fetchAPI, 401, 'UNAUTHENTICATED', 'invalid, unknown or revoked credentials'));
      byRequest.set(request, principal);
    },
    async onContextBuilding({ context, extendContext }) {
      const principal = byRequest.get((context as { request: Request }).request);
      if (!principal || principal === 'anonymous') {
        const { request, req } = context as { request: Request; req?: IncomingMessage };
        extendContext({
          principalTokens: await options.signedPrincipals.of(anonymous),
          clientAddress: clientAddress(
            req?.socket.remoteAddress ?? '',
            request.headers.get('x-forwarded-for'),
            options.trustedProxyHops,
          ),
        } satisfies GatewayContext);
        return;
      }
      extendContext({
        principal,
        principalTokens: await options.signedPrincipals.of(principal),
      } satisfies GatewayContext);
    },
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GatewayContext;
      if (!context.principal) {
        if (!isPublicOnly(args.document, args.operationName, options.table)) {
          setResultAndStopExecution({
            errors: [
              new GraphQLError('credentials are required: Authorization: Bearer <API key or session token>', {
                extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
              }),
            ],
          });
        }
        return;
      }
      const denial = authorize(
        context.principal,
        args.document,
        args.operationName,
        args.variableValues ?? undefined,
        args.schema,
        options.table,
        {
          introspection: options.introspection,
        },
      );
      if (denial) {
        setResultAndStopExecution({
          errors: [
            new GraphQLError(denial.message, {
              extensions: {
                code: denial.code,
                ...(denial.scope ? { scope: denial.scope } : {}),
                http: { status: denial.status },
              },
            }),
          ],
        });
      }
    },
  };
}
