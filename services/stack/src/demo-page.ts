const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export interface DemoPageFacts {
  /** The demo web integration's public key (not a secret: every page that embeds the widget shows it). */
  publicKey: string | undefined;
  /** Where demo.env is: the API key is read from there, never shown on the page. */
  demoEnvFile: string;
}

/**
 * The shell commands that answer the newest chat as an agent, through the public GraphQL API (README quick start
 * shows the same). They read the API key from demo.env, so the page carries no credential.
 */
export function answerCommands(demoEnvFile: string): string {
  return [
    `URL=$(grep '^SVC_URL=' ${demoEnvFile} | cut -d= -f2-); KEY=$(grep '^SVC_DEMO_API_KEY=' ${demoEnvFile} | cut -d= -f2-)`,
    `gql() { curl -s "$URL/graphql" -H 'content-type: application/json' -H "authorization: Bearer $KEY" -d "$1"; }`,
    `CHAT=$(gql '{"query":"{ searchChats(input: {limit: 1}) { data { _id } } }"}' | grep -o '"_id":"[^"]*"' | head -1 | cut -d'"' -f4)`,
    `gql '{"query":"mutation($c: String!) { sendMessage(chatId: $c, input: {text: \\"Hello from the team!\\"}) { _id } }","variables":{"c":"'"$CHAT"'"}}'`,
  ].join('\n');
}

/**
 * `/demo` of the embedded stack: a page that embeds the widget with loader.js, as a customer's site would, with the
 * demo org's web integration (its allowed origins are the stack's own URL), and says how to answer the visitor.
 */
export function demoPage(facts: DemoPageFacts): string {
  const widget = facts.publicKey
    ? `<script async src="/widget/loader.js" data-public-key="${escape(facts.publicKey)}"></script>`
    : '';
  const body = facts.publicKey
    ? `<p>The chat button in the corner is the widget, loaded by <code>/widget/loader.js</code> as any website would
load it. Open it and send a message: it arrives in the demo org's inbox.</p>
<h2>Answer as the team</h2>
<p>In a terminal at the repository root (the API key comes from <code>${escape(facts.demoEnvFile)}</code>):</p>
<pre>${escape(answerCommands(facts.demoEnvFile))}</pre>
<p>The answer appears in the widget at once (server-sent events). <code>docs/widget.md</code> documents the loader,
<code>window.Svc()</code> and the web component.</p>`
    : `<p>No demo org is seeded here (<code>SVC_SEED_DEMO=false</code>, or the first start has not finished): there is
no web integration to embed.</p>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc-inbox widget demo</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code,pre{background:#f3f3f3;padding:0 .2em}pre{padding:.6em;overflow-x:auto;white-space:pre-wrap}</style>
</head>
<body>
<h1>Widget demo</h1>
${body}
${widget}
</body>
</html>
`;
}
