// First: tracing (when the OTEL_* variables turn it on) must patch grpc-js, http, koa, kafkajs and mysql2 as they load.
import '@svc/kit/tracing/register';
import { runService } from '@svc/kit';
import { ChannelsApp } from './app';
import { channelsConfig } from './config';

// The migration Job (`main.js migrate`) runs without the sealing keys: it never opens a secret.
const [command] = process.argv.slice(2);
runService((env) => new ChannelsApp(channelsConfig(env, { migrating: command === 'migrate' })));
