// First: tracing (when the OTEL_* variables turn it on) must patch grpc-js, http, koa, kafkajs and mysql2 as they load.
import '@svc/kit/tracing/register';
import { exitWith, runService } from '@svc/kit';
import { WebhookIngressApp } from './app';
import { secretsCli } from './cli/secrets';
import { ingressConfig } from './config';

const [command, ...rest] = process.argv.slice(2);
if (command === 'secrets') {
  // `main.js secrets status|reseal|new-key`: the signing-secret key commands (docs/decisions/0014).
  exitWith(secretsCli(rest));
} else {
  runService((env) => new WebhookIngressApp(ingressConfig(env, { migrating: command === 'migrate' })));
}
