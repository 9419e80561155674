import { FailedPrecondition, InvalidArgument, Unavailable, type DomainError } from '@svc/kit';
import { PlatformCallError } from '../../platforms/adapter';

/**
 * A platform's refusal as the caller's error: not reachable or overloaded → UNAVAILABLE (try again); credentials
 * refused → BAD_USER_INPUT naming the credential field, in the platform's own words; anything else → FAILED_PRECONDITION.
 */
export function platformRefusal(error: unknown, field: string, doing: string): DomainError | unknown {
  if (!(error instanceof PlatformCallError)) return error;
  const { transient, code, message } = error.error;
  if (transient)
    return new Unavailable(`the platform did not answer while ${doing}: ${message}`, { platformCode: code });
  if (doing === 'checking the credentials' || error.error.reauthorize)
    return new InvalidArgument(`${field}: refused by the platform: ${message}`, { field, platformCode: code });
  return new FailedPrecondition(`the platform refused ${doing}: ${message}`, { platformCode: code });
}
