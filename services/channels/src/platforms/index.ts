export * from './adapter';
export { platformAdapters, type AdapterOptions, type PlatformAdapters } from './registry';
export * from './chat-app-a';
export * from './social-app-d';
export { hubSignature, verifyHubSignature, HUB_SIGNATURE_HEADER } from './graph/signature';
export { appSecretProof } from './graph/client';
export { classifyGraphError } from './graph/errors';
export { GRAPH_OAUTH_DIALOG_URL, type GraphApp } from './graph/oauth';
export { PLATFORM_SECRET_LOG_KEYS } from './secret-fields';
