import { OutboxEvent } from '@svc/kit';
import { ConnectionRow } from './connection';
import { IdempotencyKeyRow } from './idempotency-key';
import { RequestLogRow } from './request-log';

export { ConnectionRow, IdempotencyKeyRow, RequestLogRow };
export const entities = [ConnectionRow, RequestLogRow, IdempotencyKeyRow, OutboxEvent];
