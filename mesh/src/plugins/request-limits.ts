import { GraphQLError, Lexer, Source, TokenKind, type Token } from 'graphql';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { isMultipart } from './multipart-body-limit';

/** docs/decisions/0048-gateway-request-limits.md */
export interface RequestLimits {
  /** Largest JSON (or other non-multipart) request body, in bytes; multipart uploads keep their own limits. */
  maxBodyBytes: number;
  /** Lexical tokens of a document, comments included. */
  maxTokens: number;
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = { maxBodyBytes: 1024 * 1024, maxTokens: 2000 };

const CONTENT_LENGTH = /^\d+$/;

// A named helper, not the call inlined: multipart-body-limit.ts finds Yoga's hook by that call's text.
const declaredLength = (request: Request) => request.headers.get('content-length');

function tooLarge(maxBytes: number): GraphQLError {
  return new GraphQLError(`Request body too large: at most ${maxBytes} bytes`, {
    // The client may still be sending the rest: close the connection instead of leaving it half read.
    extensions: { code: 'REQUEST_ENTITY_TOO_LARGE', http: { status: 413, headers: { connection: 'close' } } },
  });
}

/** Refused before the body is read: the connection closes, as the client may still be sending it. */
function refusedUnread(fetchAPI: { Response: typeof Response }, status: number, error: GraphQLError): Response {
  const body = { errors: [{ message: error.message, extensions: { code: error.extensions.code } }] };
  return new fetchAPI.Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', connection: 'close' },
  });
}

/**
 * Lexical tokens of a GraphQL document, counting each comment; stops at the first token past `max` (a run of comments
 * is lexed whole, which the body limit bounds).
 */
export function countTokens(source: string, max: number): number {
  const lexer = new Lexer(new Source(source));
  let count = 0;
  let previous: Token = lexer.token;
  while (count <= max) {
    const token = lexer.advance();
    // advance() skips comments but links them between the two tokens it returns.
    for (let comment = previous.next; comment && comment !== token; comment = comment.next) count += 1;
    if (token.kind === TokenKind.EOF) break;
    count += 1;
    previous = token;
  }
  return count;
}

/**
 * Bounds what the gateway reads and parses before any other work: a non-multipart body larger than `maxBodyBytes` is
 * refused with 413 REQUEST_ENTITY_TOO_LARGE from its Content-Length before the body is read (so before the auth
 * plugin looks at a credential-less body), or while it streams when it has none; a document of more than `maxTokens`
 * tokens, comments included, is refused before graphql-js parses it (graphql-armor's max-tokens skips comments).
 */
export function useRequestLimits(limits: RequestLimits, graphqlEndpoint: string): GatewayPlugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== graphqlEndpoint || isMultipart(request)) return;
      const length = declaredLength(request);
      if (length === null) return;
      if (!CONTENT_LENGTH.test(length))
        return endResponse(
          refusedUnread(
            fetchAPI,
            400,
            new GraphQLError('Content-Length header is invalid.', { extensions: { code: 'BAD_REQUEST' } }),
          ),
        );
      if (Number(length) > limits.maxBodyBytes)
        return endResponse(refusedUnread(fetchAPI, 413, tooLarge(limits.maxBodyBytes)));
    },
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      if (!requestParser || isMultipart(request) || declaredLength(request) !== null) return;
      const parse = requestParser;
      setRequestParser((received) => {
        if (!received.body) return parse(received);
        let read = 0;
        const body = received.body.pipeThrough(
          new fetchAPI.TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              read += chunk.byteLength;
              if (read > limits.maxBodyBytes) controller.error(tooLarge(limits.maxBodyBytes));
              else controller.enqueue(chunk);
            },
          }),
        );
        return parse(
          new fetchAPI.Request(received.url, {
            method: received.method,
            headers: received.headers,
            signal: received.signal,
            body,
            duplex: 'half',
          } as RequestInit),
        );
      });
    },
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        const text = typeof source === 'string' ? source : source.body;
        const count = countTokens(text, limits.maxTokens);
        if (count > limits.maxTokens)
          throw new GraphQLError(`Syntax Error: token limit of ${limits.maxTokens} exceeded (comments count)`, {
            extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
          });
        return parseFn(source, options);
      });
    },
  };
}
