import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { Stack, seedDemo, stackConfig } from '../src';

async function graphql(
  url: string,
  key: string,
  query: string,
): Promise<{ data?: Record<string, unknown>; errors?: unknown[] }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: Record<string, unknown> };
}

describe('Stack (embedded default)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-stack-'));
  const config = () =>
    stackConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', SVC_DATA_DIR: dataDir, BCRYPT_COST: '4' });

  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('seeds the demo org once, writes demo.env, and keeps data and credentials across restarts', async () => {
    const first = new Stack(config());
    await first.start();
    const demo = await seedDemo(first);
    const env = fs.readFileSync(path.join(dataDir, 'demo.env'), 'utf8');
    for (const name of [
      'SVC_URL',
      'SVC_DEMO_EMAIL',
      'SVC_DEMO_PASSWORD',
      'SVC_DEMO_API_KEY',
      'SVC_DEMO_WEB_PUBLIC_KEY',
      'SVC_DEMO_WEB_IDENTITY_SECRET',
      'SVC_DEMO_ORG_SLUG',
    ])
      expect(env).to.match(new RegExp(`^${name}=.+$`, 'm'));
    const url = `http://127.0.0.1:${first.port}`;
    const landing = await (await fetch(`${url}/`)).text();
    expect(landing, 'the landing page points at demo.env').to.contain(path.join(dataDir, 'demo.env'));
    expect(landing, 'and at the demo help center').to.contain('href="/help/demo-org"');
    expect(demo.SVC_DEMO_ORG_SLUG).to.equal('demo-org');
    expect((await fetch(`${url}/help/${demo.SVC_DEMO_ORG_SLUG}`)).status, 'the demo help center').to.equal(200);
    const helpPage = await fetch(`${url}/help/${demo.SVC_DEMO_ORG_SLUG}/pt/articles/onde-esta-meu-pedido`);
    expect(await helpPage.text(), 'a seeded article, published in Portuguese too').to.contain('Onde está meu pedido?');
    const widgetNews = await fetch(`${url}/api/web/news/${demo.SVC_DEMO_WEB_PUBLIC_KEY}?locale=en`);
    const news = (await widgetNews.json()) as { data: { title: string }[] };
    expect(
      news.data.map((post) => post.title),
      'the widget demo has news',
    ).to.deep.equal(['Live chat is here']);
    const articles = await graphql(url, demo.SVC_DEMO_API_KEY, '{ helpArticles { totalCount } }');
    expect(articles.data, 'the seeded articles, through the API').to.deep.equal({ helpArticles: { totalCount: 2 } });
    const query = `{ getMessages(chatId: "${demo.SVC_DEMO_CHAT_ID}") { data { text } } }`;
    const before = await graphql(url, demo.SVC_DEMO_API_KEY, query);
    expect(before.errors).to.equal(undefined);
    const web = await graphql(url, demo.SVC_DEMO_API_KEY, '{ webIntegration { id publicKey allowedOrigins } }');
    expect(web.data?.webIntegration).to.deep.include({
      publicKey: demo.SVC_DEMO_WEB_PUBLIC_KEY,
      allowedOrigins: [`http://localhost:${first.port}`],
    });
    await first.stop();

    const second = new Stack(config());
    await second.start();
    try {
      const again = await seedDemo(second);
      expect(again.SVC_DEMO_API_KEY).to.equal(demo.SVC_DEMO_API_KEY);
      expect(again.SVC_DEMO_WEB_PUBLIC_KEY).to.equal(demo.SVC_DEMO_WEB_PUBLIC_KEY);
      const after = await graphql(`http://127.0.0.1:${second.port}`, demo.SVC_DEMO_API_KEY, query);
      expect(after.data).to.deep.equal(before.data);
    } finally {
      await second.stop();
    }
  });

  it('starts each service only once the services it calls listen (flows resumes due runs, calling the inbox, at once)', async () => {
    const stack = new Stack(config());
    // Which services listen when each one starts: its runner and consumers may call them at once.
    const listening = new Map<string, string[]>();
    for (const app of stack.apps) {
      const start = app.start.bind(app);
      app.start = () => {
        listening.set(
          app.spec.name,
          stack.apps.filter((other) => other.grpcPort > 0).map((other) => other.spec.name),
        );
        return start();
      };
    }
    await stack.start();
    await stack.stop();
    // flows' runner calls identity, the inbox and contacts; webhook-ingress calls contacts and flows.
    expect(listening.get('flows')).to.include.members(['identity', 'inbox', 'contacts']);
    expect(listening.get('webhook-ingress')).to.include.members(['contacts', 'flows']);
  });

  it('replaces stack.json whole, never rewriting it in place (a polling reader saw it empty)', async () => {
    const runtimeFile = path.join(dataDir, 'stack.json');
    fs.writeFileSync(runtimeFile, '{"previous":true}');
    // A reader that opened the previous file: a rewrite in place truncates what it reads, a rename leaves it whole.
    const reader = fs.openSync(runtimeFile, 'r');
    const stack = new Stack(config());
    try {
      await stack.start();
      await stack.stop();
      expect(fs.readFileSync(reader, 'utf8')).to.equal('{"previous":true}');
    } finally {
      fs.closeSync(reader);
    }
  });

  it('answers /healthz, /readyz and /metrics on the same port', async () => {
    const stack = new Stack(config());
    await stack.start();
    try {
      const base = `http://127.0.0.1:${stack.port}`;
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      const ready = (await (await fetch(`${base}/readyz`)).json()) as {
        status: string;
        checks: Record<string, boolean>;
      };
      expect(ready.status).to.equal('ready');
      expect(Object.keys(ready.checks)).to.include.members([
        'identity.database',
        'inbox.database',
        'inbox.bus',
        'channels.database',
      ]);
      expect(await (await fetch(`${base}/metrics`)).text()).to.contain('svc_grpc_server_handling_seconds');
    } finally {
      await stack.stop();
    }
  });
});
