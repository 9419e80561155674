export { ChatAppAAdapter, CHAT_APP_A_WEBHOOK_FIELDS } from './adapter';
export { chatAppACredentialsSchema, type ChatAppACredentials } from './credentials';
export {
  CHAT_APP_A_OAUTH_SCOPES,
  chatAppAConnectUrl,
  chatAppANumbersFromCode,
  type ChatAppAConnectable,
} from './oauth';
