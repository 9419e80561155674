import { runService } from '@svc/kit';
import { InboxApp } from './app';
import { inboxConfig } from './config';

runService(() => new InboxApp(inboxConfig()));
