// First: tracing (when the OTEL_* variables turn it on) must patch grpc-js, http, koa, kafkajs and mysql2 as they load.
import '@svc/kit/tracing/register';
import { stopOnSignals } from '@svc/kit';
import { serveBenchControl } from './bench-control';
import { stackConfig } from './config';
import { demoEnvPath, seedDemo } from './demo-seed';
import { Stack } from './stack';

async function main(): Promise<void> {
  const stack = new Stack(stackConfig(), process.env);
  stopOnSignals(() => stack.stop(), stack.logger);
  await stack.start();
  if (stack.config.SVC_BENCH_CONTROL === 'ipc') serveBenchControl(stack, stack.logger);
  const lines = [
    `svc-inbox is up on ${stack.url} (open it in a browser)`,
    `  GraphQL   POST ${stack.url}/graphql${stack.config.GATEWAY_EXPLORER ? '   explorer: the same URL in a browser' : ''}`,
    `  health    ${stack.url}/readyz   metrics ${stack.url}/metrics`,
  ];
  if (stack.config.SVC_SEED_DEMO) {
    const demo = await seedDemo(stack);
    lines.push(
      '',
      'Demo org (also in ' + demoEnvPath(stack.config.SVC_DATA_DIR) + '):',
      `  dashboard login  ${demo.SVC_DEMO_EMAIL} / ${demo.SVC_DEMO_PASSWORD}`,
      `  API key          ${demo.SVC_DEMO_API_KEY}`,
      `  demo chat        ${demo.SVC_DEMO_CHAT_ID}`,
      `  web widget key   ${demo.SVC_DEMO_WEB_PUBLIC_KEY}   (identity secret: SVC_DEMO_WEB_IDENTITY_SECRET in the file)`,
      `  widget demo      ${stack.url}/demo   (chat as a visitor; the page shows how to answer over GraphQL)`,
      `  help center      ${stack.url}/help/${demo.SVC_DEMO_ORG_SLUG}   (its published articles, per locale; sitemap.xml)`,
      '',
      'Try it:',
      `  curl -s ${stack.url}/graphql -H 'content-type: application/json' -H "authorization: Bearer ${demo.SVC_DEMO_API_KEY}" \\`,
      `    -d '{"query":"{ getMessages(chatId: \\"${demo.SVC_DEMO_CHAT_ID}\\") { data { _id text deliveryStatus createdAt } hasNext } }"}'`,
    );
  }
  lines.push('', 'Ctrl-C stops it; data stays in ' + stack.config.SVC_DATA_DIR + '.');
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
