import { OutboxEvent } from '@svc/kit';
import { ChatRow } from './chat';
import { MessageRow } from './message';

export { ChatRow, MessageRow };
export const entities = [ChatRow, MessageRow, OutboxEvent];
