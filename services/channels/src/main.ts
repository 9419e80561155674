// First: tracing (when the OTEL_* variables turn it on) must patch grpc-js, http, koa, kafkajs and mysql2 as they load.
import '@svc/kit/tracing/register';
import { exitWith, runService } from '@svc/kit';
import { ChannelsApp } from './app';
import { secretsCli } from './cli/secrets';
import { channelsConfig } from './config';

const [command, ...rest] = process.argv.slice(2);
if (command === 'secrets') {
  // `main.js secrets status|reseal|new-key`: the identity-secret key commands (docs/deploy.md, "Channels keys").
  exitWith(secretsCli(rest));
} else {
  // The migration Job (`main.js migrate`) runs without the sealing keys: it never opens a secret.
  runService((env) => new ChannelsApp(channelsConfig(env, { migrating: command === 'migrate' })));
}
