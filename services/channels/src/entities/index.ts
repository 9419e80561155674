import { OutboxEvent } from '@svc/kit';
import { ChannelRow } from './channel';
import { WebIntegrationRow } from './web-integration';

export { ChannelRow, WebIntegrationRow };
export const entities = [ChannelRow, WebIntegrationRow, OutboxEvent];
