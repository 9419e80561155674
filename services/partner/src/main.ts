// First: tracing (when the OTEL_* variables turn it on) must patch grpc-js, http, koa, kafkajs and mysql2 as they load.
import '@svc/kit/tracing/register';
import { runService } from '@svc/kit';
import { PartnerApp } from './app';
import { partnerConfig } from './config';

const [command] = process.argv.slice(2);
runService((env) => new PartnerApp(partnerConfig(env, { migrating: command === 'migrate' })));
