export * from './adapter';
export { platformAdapters, type AdapterOptions, type PlatformAdapters } from './registry';
export { ChatAppAAdapter, chatAppACredentialsSchema, type ChatAppACredentials } from './chat-app-a';
export { SocialAppDAdapter, socialAppDCredentialsSchema, type SocialAppDCredentials } from './social-app-d';
export { hubSignature, verifyHubSignature, HUB_SIGNATURE_HEADER } from './graph/signature';
export { appSecretProof } from './graph/client';
export { classifyGraphError } from './graph/errors';
