export { ChatAppAAdapter, CHAT_APP_A_WEBHOOK_FIELDS } from './adapter';
export { chatAppACredentialsSchema, type ChatAppACredentials } from './credentials';
