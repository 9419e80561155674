import { OutboxEvent } from '@svc/kit';
import { ApiKeyRow } from './api-key';
import { LoginThrottleRow } from './login-throttle';
import { MemberRow } from './member';
import { OrgRow } from './org';
import { OrgErasureConfirmationRow } from './org-erasure-confirmation';
import { SessionRow } from './session';

export { ApiKeyRow, LoginThrottleRow, MemberRow, OrgErasureConfirmationRow, OrgRow, SessionRow };
export const entities = [
  OrgRow,
  MemberRow,
  SessionRow,
  ApiKeyRow,
  LoginThrottleRow,
  OrgErasureConfirmationRow,
  OutboxEvent,
];
