import {
  credentials,
  type CallOptions,
  type ChannelOptions,
  type ClientUnaryCall,
  type Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
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
  DeadlineExceeded,
  type DomainError,
  type ErrorCode,
} from '../errors';
import { DEFAULT_CALL_POLICY, WITHOUT_CHANNELZ, grpcChannelOptions, type GrpcCallPolicy } from './call-policy';
import { REQUEST_ID_HEADER, currentRequestId } from '../tracing/request-id';

export const insecure = credentials.createInsecure;

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * Calls a ts-proto grpc-js client method as a promise (metadata may still be being signed), under the current
 * request's x-request-id. The deadline is the client's call policy (`grpcClient`); `deadlineMs` can only shorten it.
 */
export async function unary<Req, Res>(
  method: UnaryMethod<Req, Res>,
  request: Req,
  metadataOrPending: Metadata | Promise<Metadata>,
  deadlineMs?: number,
): Promise<Res> {
  const requestId = currentRequestId();
  let metadata = await metadataOrPending;
  if (requestId && !metadata.get(REQUEST_ID_HEADER).length) {
    // A copy: the caller's metadata may be shared by other calls.
    metadata = metadata.clone();
    metadata.set(REQUEST_ID_HEADER, requestId);
  }
  const options = deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs };
  return new Promise((resolve, reject) => {
    method(request, metadata, options, (error, response) => (error ? reject(error) : resolve(response)));
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
  DEADLINE_EXCEEDED: DeadlineExceeded,
};

/**
 * Turns a downstream gRPC failure back into the domain error it was, for service-to-service calls, keeping the
 * argument it named (`x-svc-error-field`, set by `implement`) so a caller can tell which of its inputs was refused,
 * and the refusal's `reason` word (`x-svc-error-reason`, decision 0140).
 */
export function domainErrorOf(error: ServiceError): DomainError | ServiceError {
  const ErrorClass = DOMAIN_ERROR_OF[errorCodeOfGrpcStatus(error.code)];
  if (!ErrorClass) return error;
  const details: Record<string, string> = {};
  for (const key of ['field', 'reason']) {
    const value = error.metadata?.get(`x-svc-error-${key}`)[0];
    if (typeof value === 'string' && value) details[key] = value;
  }
  return new ErrorClass(error.details || error.message, details);
}

/**
 * Builds a ts-proto client for a service at `host:port` over plaintext (in-cluster traffic; mTLS is the mesh's job),
 * with the deadlines and retries of `policy` (`callPolicyOf(config)` in a service).
 */
export function grpcClient<C>(
  Client: new (address: string, creds: ReturnType<typeof insecure>, options: ChannelOptions) => C,
  address: string,
  policy: GrpcCallPolicy = DEFAULT_CALL_POLICY,
): C {
  return new Client(address, insecure(), { ...grpcChannelOptions(policy), ...WITHOUT_CHANNELZ });
}
