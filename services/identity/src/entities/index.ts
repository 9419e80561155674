import { OutboxEvent } from '@svc/kit';
import { ApiKeyRow } from './api-key';
import { MemberRow } from './member';
import { OrgRow } from './org';
import { SessionRow } from './session';

export { ApiKeyRow, MemberRow, OrgRow, SessionRow };
export const entities = [OrgRow, MemberRow, SessionRow, ApiKeyRow, OutboxEvent];
