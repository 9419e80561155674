export { InboxApp, type InboxDeps } from './app';
export { inboxConfig, inboxConfigSchema, type InboxConfig } from './config';
export { inboxData } from './data';
export { CHATS_TOPIC, MESSAGES_TOPIC } from './domain/events';
export { MEMBER_REMOVAL_GROUP, MEMBERS_TOPIC } from './domain/member-removal';
export { MESSAGING_WINDOW_CLOSED, MESSAGING_WINDOW_HOURS } from './domain/messaging-window';
