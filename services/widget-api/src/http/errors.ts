import { DomainError, type ErrorCode } from '@svc/kit';

const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  FAILED_PRECONDITION: 409,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: ErrorCode; message: string; field?: string; reason?: string } };
}

/** The JSON error body of every widget-api failure: `{ error: { code, message, field?, reason? } }`. */
export function errorAnswer(error: unknown): ErrorAnswer {
  if (!(error instanceof DomainError) || error.code === 'INTERNAL_SERVER_ERROR') {
    return {
      status: 500,
      headers: {},
      body: { error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal Server Error' } },
    };
  }
  const { field, reason, retryAfterSeconds } = error.details;
  return {
    status: HTTP_STATUS[error.code],
    headers: retryAfterSeconds ? { 'retry-after': retryAfterSeconds } : {},
    body: { error: { code: error.code, message: error.message, field, reason } },
  };
}
