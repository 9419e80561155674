export { SocialAppDAdapter, SOCIAL_APP_D_WEBHOOK_FIELDS } from './adapter';
export { socialAppDCredentialsSchema, type SocialAppDCredentials } from './credentials';
export {
  SOCIAL_APP_D_OAUTH_SCOPES,
  socialAppDConnectUrl,
  socialAppDPagesFromCode,
  type SocialAppDConnectable,
} from './oauth';
