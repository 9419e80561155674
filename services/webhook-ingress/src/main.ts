// First: tracing (when the OTEL_* variables turn it on) must patch grpc-js, http, koa, kafkajs and mysql2 as they load.
import '@svc/kit/tracing/register';
import { runService } from '@svc/kit';
import { WebhookIngressApp } from './app';
import { secretsCli } from './cli/secrets';
import { ingressConfig } from './config';

const [command, ...rest] = process.argv.slice(2);
if (command === 'secrets') {
  // `main.js secrets status|reseal|new-key`: the signing-secret key commands (docs/decisions/0014).
  secretsCli(rest).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  runService((env) => new WebhookIngressApp(ingressConfig(env, { migrating: command === 'migrate' })));
}
