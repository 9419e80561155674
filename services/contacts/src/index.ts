export { ContactsApp, type ContactsDeps } from './app';
export { contactsConfig, contactsConfigSchema, type ContactsConfig } from './config';
export { contactsData } from './data';
export { PEOPLE_TOPIC } from './domain/events';
