import { OutboxEvent } from '@svc/kit';
import { ChannelRow } from './channel';
import { ConnectStateRow } from './connect-state';
import { PlatformInboundEventRow, PlatformInboundMessageRow } from './inbound';
import { PlatformChannelRow } from './platform-channel';
import { WebIntegrationRow } from './web-integration';

export { ChannelRow, PlatformChannelRow, WebIntegrationRow };
export { PlatformInboundEventRow, PlatformInboundMessageRow };
export { ConnectStateRow };
export const entities = [
  ChannelRow,
  WebIntegrationRow,
  PlatformChannelRow,
  OutboxEvent,
  PlatformInboundEventRow,
  PlatformInboundMessageRow,
  ConnectStateRow,
];
