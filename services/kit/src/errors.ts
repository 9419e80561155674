import { status as GrpcStatus } from '@grpc/grpc-js';

/** The error codes every surface speaks: gRPC status in services, `extensions.code` in GraphQL. */
export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'FORBIDDEN'
  | 'UNAUTHENTICATED'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'FAILED_PRECONDITION'
  | 'INTERNAL_SERVER_ERROR'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED';

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
  constructor(
    message: string,
    readonly details: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidArgument extends DomainError {
  readonly code = 'BAD_USER_INPUT';
}
export class NotFound extends DomainError {
  readonly code = 'NOT_FOUND';
}
export class Forbidden extends DomainError {
  readonly code = 'FORBIDDEN';
}
export class Unauthenticated extends DomainError {
  readonly code = 'UNAUTHENTICATED';
}
export class Conflict extends DomainError {
  readonly code = 'CONFLICT';
}
export class RateLimited extends DomainError {
  readonly code = 'RATE_LIMITED';
}
export class FailedPrecondition extends DomainError {
  readonly code = 'FAILED_PRECONDITION';
}
/** A service this one depends on could not answer (down, or refusing work for now); the caller may retry. */
export class Unavailable extends DomainError {
  readonly code = 'UNAVAILABLE';
}
/**
 * A service did not answer within the deadline (docs/decisions/0064): a write may or may not have happened, so the
 * caller checks before repeating it.
 */
export class DeadlineExceeded extends DomainError {
  readonly code = 'DEADLINE_EXCEEDED';
}

const GRPC_STATUS_OF: Record<ErrorCode, GrpcStatus> = {
  BAD_USER_INPUT: GrpcStatus.INVALID_ARGUMENT,
  NOT_FOUND: GrpcStatus.NOT_FOUND,
  FORBIDDEN: GrpcStatus.PERMISSION_DENIED,
  UNAUTHENTICATED: GrpcStatus.UNAUTHENTICATED,
  CONFLICT: GrpcStatus.ALREADY_EXISTS,
  RATE_LIMITED: GrpcStatus.RESOURCE_EXHAUSTED,
  FAILED_PRECONDITION: GrpcStatus.FAILED_PRECONDITION,
  INTERNAL_SERVER_ERROR: GrpcStatus.INTERNAL,
  UNAVAILABLE: GrpcStatus.UNAVAILABLE,
  DEADLINE_EXCEEDED: GrpcStatus.DEADLINE_EXCEEDED,
};

const ERROR_CODE_OF = new Map<number, ErrorCode>([
  [GrpcStatus.INVALID_ARGUMENT, 'BAD_USER_INPUT'],
  [GrpcStatus.OUT_OF_RANGE, 'BAD_USER_INPUT'],
  [GrpcStatus.NOT_FOUND, 'NOT_FOUND'],
  [GrpcStatus.PERMISSION_DENIED, 'FORBIDDEN'],
  [GrpcStatus.UNAUTHENTICATED, 'UNAUTHENTICATED'],
  [GrpcStatus.ALREADY_EXISTS, 'CONFLICT'],
  [GrpcStatus.ABORTED, 'CONFLICT'],
  [GrpcStatus.RESOURCE_EXHAUSTED, 'RATE_LIMITED'],
  [GrpcStatus.FAILED_PRECONDITION, 'FAILED_PRECONDITION'],
  [GrpcStatus.UNAVAILABLE, 'UNAVAILABLE'],
  [GrpcStatus.DEADLINE_EXCEEDED, 'DEADLINE_EXCEEDED'],
]);

export function grpcStatusOf(code: ErrorCode): GrpcStatus {
  return GRPC_STATUS_OF[code];
}

/** The public error code for a gRPC status; anything unclassified is an internal error. */
export function errorCodeOfGrpcStatus(status: number): ErrorCode {
  return ERROR_CODE_OF.get(status) ?? 'INTERNAL_SERVER_ERROR';
}
