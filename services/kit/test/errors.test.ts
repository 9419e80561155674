import { expect } from 'chai';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  Conflict,
  DeadlineExceeded,
  InvalidArgument,
  NotFound,
  Unavailable,
  domainErrorOf,
  errorCodeOfGrpcStatus,
  grpcStatusOf,
} from '../src';

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
      'UNAVAILABLE',
      'DEADLINE_EXCEEDED',
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
    expect(domainErrorOf(failure(status.UNAVAILABLE))).to.be.instanceOf(Unavailable);
    expect(domainErrorOf(failure(status.DEADLINE_EXCEEDED))).to.be.instanceOf(DeadlineExceeded);
    const internal = failure(status.INTERNAL);
    expect(domainErrorOf(internal)).to.equal(internal);
  });

  it('keeps the argument a downstream error named (x-svc-error-field), and names none when there was none', () => {
    const metadata = new Metadata();
    metadata.set('x-svc-error-field', 'operatorId');
    const named = { code: status.NOT_FOUND, details: 'operator not found', metadata } as ServiceError;
    expect(domainErrorOf(named)).to.be.instanceOf(NotFound).with.deep.property('details', { field: 'operatorId' });
    const unnamed = { code: status.NOT_FOUND, details: 'gone', metadata: new Metadata() } as ServiceError;
    expect(domainErrorOf(unnamed)).to.have.deep.property('details', {});
  });
});
