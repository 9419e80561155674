import { expect } from 'chai';
import { status, type ServiceError } from '@grpc/grpc-js';
import { Conflict, InvalidArgument, NotFound, domainErrorOf, errorCodeOfGrpcStatus, grpcStatusOf } from '../src';

describe('kit.errors', () => {
  it('maps every domain error code to a gRPC status and back', () => {
    for (const code of [
      'BAD_USER_INPUT',
      'NOT_FOUND',
      'FORBIDDEN',
      'UNAUTHENTICATED',
      'CONFLICT',
      'RATE_LIMITED',
      'FAILED_PRECONDITION',
    ] as const) {
      expect(errorCodeOfGrpcStatus(grpcStatusOf(code))).to.equal(code);
    }
  });

  it('treats unclassified gRPC statuses as internal errors', () => {
    expect(errorCodeOfGrpcStatus(status.INTERNAL)).to.equal('INTERNAL_SERVER_ERROR');
    expect(errorCodeOfGrpcStatus(status.UNKNOWN)).to.equal('INTERNAL_SERVER_ERROR');
  });

  it('turns a downstream failure back into the domain error it was', () => {
    const failure = (code: status) => ({ code, details: 'why', message: `${code} why` }) as ServiceError;
    expect(domainErrorOf(failure(status.NOT_FOUND)))
      .to.be.instanceOf(NotFound)
      .with.property('message', 'why');
    expect(domainErrorOf(failure(status.INVALID_ARGUMENT))).to.be.instanceOf(InvalidArgument);
    expect(domainErrorOf(failure(status.ALREADY_EXISTS))).to.be.instanceOf(Conflict);
    const internal = failure(status.INTERNAL);
    expect(domainErrorOf(internal)).to.equal(internal);
  });
});
