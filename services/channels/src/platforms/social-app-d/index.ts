export { SocialAppDAdapter, SOCIAL_APP_D_WEBHOOK_FIELDS } from './adapter';
export { socialAppDCredentialsSchema, type SocialAppDCredentials } from './credentials';
