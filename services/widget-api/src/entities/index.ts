import { OutboxEvent } from '@svc/kit';
import { VisitorSessionRow } from './visitor-session';

export { VisitorSessionRow };
export const entities = [VisitorSessionRow, OutboxEvent];
