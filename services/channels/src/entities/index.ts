import { OutboxEvent } from '@svc/kit';
import { ChannelRow } from './channel';
import { PlatformChannelRow } from './platform-channel';
import { WebIntegrationRow } from './web-integration';

export { ChannelRow, PlatformChannelRow, WebIntegrationRow };
export const entities = [ChannelRow, WebIntegrationRow, PlatformChannelRow, OutboxEvent];
