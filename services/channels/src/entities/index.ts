import { OutboxEvent } from '@svc/kit';
import { ChannelRow } from './channel';
import { ConnectStateRow } from './connect-state';
import { PlatformInboundEventRow, PlatformInboundMessageRow } from './inbound';
import { OutboundDeliveryRow, OutboundPlatformMessageRow } from './outbound-delivery';
import { PlatformChannelRow } from './platform-channel';
import { ChatAppATemplateRow, ChatAppATemplateSendRow } from './template';
import { WebIntegrationRow } from './web-integration';

export { ChannelRow, PlatformChannelRow, WebIntegrationRow };
export { PlatformInboundEventRow, PlatformInboundMessageRow };
export { OutboundDeliveryRow, OutboundPlatformMessageRow };
export type { DeliveryState, FailureKind } from './outbound-delivery';
export { ChatAppATemplateRow, ChatAppATemplateSendRow };
export { ConnectStateRow };
export const entities = [
  ChannelRow,
  WebIntegrationRow,
  PlatformChannelRow,
  OutboxEvent,
  PlatformInboundEventRow,
  PlatformInboundMessageRow,
  OutboundDeliveryRow,
  OutboundPlatformMessageRow,
  ChatAppATemplateRow,
  ChatAppATemplateSendRow,
  ConnectStateRow,
];
