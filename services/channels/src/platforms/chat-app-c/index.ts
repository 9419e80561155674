export { ChatAppCAdapter, SIGNATURE_HEADER, viberSignature } from './adapter';
export { ViberApi, classifyViberError, parseViberJson, VIBER_STATUS } from './api';
export { chatAppCCredentialsSchema } from './credentials';
export type { ViberCallback, ViberMessage } from './types';
