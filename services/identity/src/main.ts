import { runService } from '@svc/kit';
import { IdentityApp } from './app';
import { identityConfig } from './config';

runService((env) => new IdentityApp(identityConfig(env)));
