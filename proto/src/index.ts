export * as common from '../gen/svc/common/v1/principal';
export * as identity from '../gen/svc/identity/v1/identity_service';
export * as inbox from '../gen/svc/inbox/v1/inbox_service';
export * as events from '../gen/svc/events/v1/events';
export * as contacts from '../gen/svc/contacts/v1/contacts_service';
export * as webhooks from '../gen/svc/webhooks/v1/webhook_ingress_service';
export * as flows from '../gen/svc/flows/v1/flows_service';
export * as channels from '../gen/svc/channels/v1/channels_service';
export { PROTO_ROOT, protoFile } from './protos';
