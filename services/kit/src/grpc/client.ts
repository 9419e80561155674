import { credentials, type CallOptions, type ClientUnaryCall, type Metadata, type ServiceError } from '@grpc/grpc-js';
import {
  errorCodeOfGrpcStatus,
  FailedPrecondition,
  Forbidden,
  InvalidArgument,
  NotFound,
  Unauthenticated,
  Conflict,
  RateLimited,
  Unavailable,
  type DomainError,
  type ErrorCode,
} from '../errors';
import { REQUEST_ID_HEADER, currentRequestId } from '../tracing/request-id';

export const insecure = credentials.createInsecure;

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** Calls a ts-proto grpc-js client method as a promise with a deadline, under the current request's x-request-id. */
export function unary<Req, Res>(
  method: UnaryMethod<Req, Res>,
  request: Req,
  metadata: Metadata,
  deadlineMs = 10_000,
): Promise<Res> {
  const requestId = currentRequestId();
  if (requestId && !metadata.get(REQUEST_ID_HEADER).length) metadata.set(REQUEST_ID_HEADER, requestId);
  return new Promise((resolve, reject) => {
    method(request, metadata, { deadline: Date.now() + deadlineMs }, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

const DOMAIN_ERROR_OF: Partial<
  Record<ErrorCode, new (message: string, details?: Record<string, string>) => DomainError>
> = {
  BAD_USER_INPUT: InvalidArgument,
  NOT_FOUND: NotFound,
  FORBIDDEN: Forbidden,
  UNAUTHENTICATED: Unauthenticated,
  CONFLICT: Conflict,
  RATE_LIMITED: RateLimited,
  FAILED_PRECONDITION: FailedPrecondition,
  UNAVAILABLE: Unavailable,
};

/**
 * Turns a downstream gRPC failure back into the domain error it was, for service-to-service calls, keeping the
 * argument it named (`x-svc-error-field`, set by `implement`) so a caller can tell which of its inputs was refused.
 */
export function domainErrorOf(error: ServiceError): DomainError | ServiceError {
  const ErrorClass = DOMAIN_ERROR_OF[errorCodeOfGrpcStatus(error.code)];
  if (!ErrorClass) return error;
  const field = error.metadata?.get('x-svc-error-field')[0];
  return new ErrorClass(error.details || error.message, typeof field === 'string' && field ? { field } : {});
}

/**
 * Channel options for every gRPC client: `round_robin` over every address the name resolves to, so with a headless
 * Service (`dns:///<svc>-headless:50051`) calls spread over all ready pods instead of pinning one HTTP/2 connection.
 */
export const GRPC_CHANNEL_OPTIONS = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
} as const;

/** Builds a ts-proto client for a service at `host:port` over plaintext (in-cluster traffic; mTLS is the mesh's job). */
export function grpcClient<C>(
  Client: new (address: string, creds: ReturnType<typeof insecure>, options: Record<string, string>) => C,
  address: string,
): C {
  return new Client(address, insecure(), GRPC_CHANNEL_OPTIONS);
}
