import { runService } from '@svc/kit';
import { ContactsApp } from './app';
import { contactsConfig } from './config';

runService((env) => new ContactsApp(contactsConfig(env)));
