import { OutboxEvent } from '@svc/kit';
import { FlowRow } from './flow';
import { ProcessedEventRow } from './processed-event';
import { RunRow } from './run';

export { FlowRow, ProcessedEventRow, RunRow };
export const entities = [FlowRow, RunRow, ProcessedEventRow, OutboxEvent];
