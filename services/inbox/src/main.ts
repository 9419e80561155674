import { runService } from '@svc/kit';
import { InboxApp } from './app';
import { inboxConfig } from './config';

runService((env) => new InboxApp(inboxConfig(env)));
