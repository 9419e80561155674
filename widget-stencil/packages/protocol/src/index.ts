export {
  decidingProof,
  identityKey,
  isPrefill,
  isVisitorIdentity,
  type Prefill,
  type ProofKind,
  type VisitorIdentity,
} from './identity.js';
export {
  PROTOCOL_VERSION,
  createMessage,
  parseHostToWidget,
  parseWidgetToHost,
  type Envelope,
  type HostToWidgetMessage,
  type HostToWidgetPayloads,
  type MessageOf,
  type PayloadArgs,
  type WidgetSize,
  type WidgetToHostMessage,
  type WidgetToHostPayloads,
} from './messages.js';
export {
  connectToHost,
  connectToWidget,
  type Channel,
  type HostChannelOptions,
  type MessageEventLike,
  type MessageReceiver,
  type MessageTarget,
  type WidgetChannelOptions,
} from './channel.js';
