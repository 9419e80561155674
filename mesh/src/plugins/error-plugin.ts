import { GraphQLError, type ExecutionResult } from 'graphql';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { REQUEST_ID_HEADER, errorCodeOfGrpcStatus, type ErrorCode, type Logger } from '@svc/kit';

interface GrpcErrorExtension {
  code?: number;
  status?: string;
  details?: string;
  /**
   * Set by services/kit on domain errors: `x-svc-error-field` names the offending argument,
   * `x-svc-error-retryafterseconds` says when a RATE_LIMITED call may be retried, `x-svc-error-reason` tells refusals
   * of the same code apart with a documented word (e.g. MESSAGING_WINDOW_CLOSED, docs/decisions/0140).
   */
  metadata?: Record<string, unknown>;
}

const PUBLIC_EXTENSIONS = new Set(['code', 'scope', 'field', 'reason', 'retryAfterSeconds']);

/** Codes whose gRPC details are internal (a stack, timings and pod addresses): the client gets this instead. */
const PUBLIC_MESSAGE: Partial<Record<ErrorCode, string>> = {
  INTERNAL_SERVER_ERROR: 'Unexpected error.',
  DEADLINE_EXCEEDED: 'A service did not answer in time; the operation may or may not have taken effect.',
};

/** What a client is told when the gateway could not reach a service, or lost it mid-call. */
const UNREACHABLE_MESSAGE = 'A service is unavailable; retry later.';

function grpcOf(error: unknown): GrpcErrorExtension | undefined {
  let current = error as { extensions?: { grpc?: GrpcErrorExtension }; originalError?: unknown } | undefined;
  for (let depth = 0; current && depth < 6; depth += 1) {
    if (current.extensions?.grpc) return current.extensions.grpc;
    current = current.originalError as typeof current;
  }
  return undefined;
}

function grpcCode(grpc: GrpcErrorExtension): number {
  if (typeof grpc.code === 'number') return grpc.code;
  const byName = grpc.status ? (GrpcStatus as unknown as Record<string, number>)[grpc.status] : undefined;
  return byName ?? GrpcStatus.UNKNOWN;
}

/**
 * Every error a client sees carries `extensions.code` and nothing internal: gRPC failures from services become
 * their domain code (NOT_FOUND, BAD_USER_INPUT, FORBIDDEN, ...) with the service's message; anything unclassified
 * becomes INTERNAL_SERVER_ERROR with a generic message and is logged with its detail.
 */
export function useErrorCodes(logger: Logger): GatewayPlugin {
  // `request_id`: the gateway runs no AsyncLocalStorage (decision 0069), so its log lines name the request themselves.
  const toPublic = (error: GraphQLError, request_id: string | undefined): GraphQLError => {
    const grpc = grpcOf(error);
    if (grpc) {
      const code = errorCodeOfGrpcStatus(grpcCode(grpc));
      if (code === 'INTERNAL_SERVER_ERROR') logger.error({ grpc, path: error.path, request_id }, 'service failed');
      if (code === 'DEADLINE_EXCEEDED')
        logger.warn({ grpc, path: error.path, request_id }, 'service past its deadline');
      // A service's own UNAVAILABLE (a domain error) says why; grpc-js's (no connection, a reset) names pod addresses.
      const transportFailure = code === 'UNAVAILABLE' && grpc.metadata?.['x-svc-error-code'] === undefined;
      if (transportFailure) logger.warn({ grpc, path: error.path, request_id }, 'service unavailable');
      const message = (transportFailure ? UNREACHABLE_MESSAGE : PUBLIC_MESSAGE[code]) ?? grpc.details ?? error.message;
      const field = grpc.metadata?.['x-svc-error-field'];
      const reason = grpc.metadata?.['x-svc-error-reason'];
      const retryAfterSeconds = Number(grpc.metadata?.['x-svc-error-retryafterseconds']);
      const retry =
        code === 'RATE_LIMITED' && retryAfterSeconds > 0
          ? {
              retryAfterSeconds,
              http: { status: 429, headers: { 'Retry-After': String(retryAfterSeconds) } },
            }
          : {};
      return new GraphQLError(message, {
        nodes: error.nodes,
        path: error.path,
        extensions: {
          code,
          ...(typeof field === 'string' && code !== 'INTERNAL_SERVER_ERROR' ? { field } : {}),
          ...(typeof reason === 'string' && code !== 'INTERNAL_SERVER_ERROR' ? { reason } : {}),
          ...retry,
        },
      });
    }
    const code = error.extensions?.code;
    const extensions = Object.fromEntries(
      Object.entries(error.extensions ?? {}).filter(([k]) => PUBLIC_EXTENSIONS.has(k)),
    );
    if (typeof code !== 'string') {
      // graphql-js wraps input coercion failures (bad variables) around a GraphQLError: the caller's mistake.
      const unexpected = error.originalError !== undefined && !(error.originalError instanceof GraphQLError);
      if (unexpected) logger.error({ err: error.originalError, path: error.path, request_id }, 'unexpected error');
      return new GraphQLError(unexpected ? 'Unexpected error.' : error.message, {
        nodes: error.nodes,
        path: error.path,
        extensions: { ...extensions, code: unexpected ? 'INTERNAL_SERVER_ERROR' : 'BAD_USER_INPUT' },
      });
    }
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: { ...extensions, code, ...(error.extensions?.http ? { http: error.extensions.http } : {}) },
    });
  };
  const fix = (result: ExecutionResult, requestId: string | undefined): ExecutionResult =>
    result.errors?.length
      ? {
          ...result,
          errors: result.errors.map((e) =>
            toPublic(e instanceof GraphQLError ? e : new GraphQLError(String(e)), requestId),
          ),
        }
      : result;
  return {
    onResultProcess({ request, result, setResult }) {
      const requestId = request.headers.get(REQUEST_ID_HEADER) ?? undefined;
      if (Array.isArray(result)) setResult(result.map((r) => fix(r as ExecutionResult, requestId)));
      else if (result && typeof result === 'object' && 'errors' in result)
        setResult(fix(result as ExecutionResult, requestId));
    },
  };
}
