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
  type DomainError,
} from '../errors';

export const insecure = credentials.createInsecure;

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** Calls a ts-proto grpc-js client method as a promise with a deadline. */
export function unary<Req, Res>(
  method: UnaryMethod<Req, Res>,
  request: Req,
  metadata: Metadata,
  deadlineMs = 10_000,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    method(request, metadata, { deadline: Date.now() + deadlineMs }, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

/** Turns a downstream gRPC failure back into the domain error it was, for service-to-service calls. */
export function domainErrorOf(error: ServiceError): DomainError | ServiceError {
  const message = error.details || error.message;
  switch (errorCodeOfGrpcStatus(error.code)) {
    case 'BAD_USER_INPUT':
      return new InvalidArgument(message);
    case 'NOT_FOUND':
      return new NotFound(message);
    case 'FORBIDDEN':
      return new Forbidden(message);
    case 'UNAUTHENTICATED':
      return new Unauthenticated(message);
    case 'CONFLICT':
      return new Conflict(message);
    case 'RATE_LIMITED':
      return new RateLimited(message);
    case 'FAILED_PRECONDITION':
      return new FailedPrecondition(message);
    default:
      return error;
  }
}

/** Builds a ts-proto client for a service at `host:port` over plaintext (in-cluster traffic; mTLS is the mesh's job). */
export function grpcClient<C>(
  Client: new (address: string, creds: ReturnType<typeof insecure>) => C,
  address: string,
): C {
  return new Client(address, insecure());
}
