import { OutboxEvent } from '@svc/kit';
import { ApiKeyRow } from './api-key';
import { LoginThrottleRow } from './login-throttle';
import { MemberRow } from './member';
import { OrgRow } from './org';
import { SessionRow } from './session';

export { ApiKeyRow, LoginThrottleRow, MemberRow, OrgRow, SessionRow };
export const entities = [OrgRow, MemberRow, SessionRow, ApiKeyRow, LoginThrottleRow, OutboxEvent];
