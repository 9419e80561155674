import * as fs from 'node:fs';

export interface LandingFacts {
  /** Services running in this process, in start order. */
  services: string[];
  /** Where demo.env is, when the demo org is seeded; shown only once the file exists. */
  demoEnvFile: string | undefined;
  /** GraphiQL is served at /graphql. */
  explorer: boolean;
  /** The demo org's public help center (`/help/<slug>`), once seeded. */
  helpCenterPath?: string;
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** Documentation in the repository (not served: paths to open in a checkout). */
const DOCS: [string, string][] = [
  ['README.md', 'what svc-inbox is, how to run it'],
  ['docs/api.md', 'the GraphQL API: authentication, scopes, errors, limits'],
  ['docs/architecture.md', 'services, topics, data'],
  ['docs/deploy.md', 'Kubernetes (charts/svc)'],
  ['docs/decisions/', 'why things are the way they are'],
];

/**
 * The page at `/` of the embedded stack: what runs here and where to go next. It names only what exists in this
 * process and carries no credentials, only where to find them.
 */
export function landingPage(facts: LandingFacts): string {
  const demo =
    facts.demoEnvFile && fs.existsSync(facts.demoEnvFile)
      ? `<p>Demo credentials (dashboard login and an API key): <code>${escape(facts.demoEnvFile)}</code>.</p>`
      : '<p>No demo org was seeded here (<code>SVC_SEED_DEMO=false</code>); <code>README.md</code> says how to create an org.</p>';
  const explorer = facts.explorer
    ? '<li><a href="/graphql">GraphQL explorer</a> (GraphiQL): put an API key or a session token in its Authorization header.</li>'
    : '<li>The GraphQL explorer is off (<code>GATEWAY_EXPLORER=false</code>).</li>';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>svc-inbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code{background:#f3f3f3;padding:0 .2em}</style>
</head>
<body>
<h1>svc-inbox is running</h1>
<p>Services in this process: ${facts.services.map((name) => `<code>${escape(name)}</code>`).join(', ')}, behind the GraphQL gateway.</p>
${demo}
<h2>Try it</h2>
<ul>
<li>GraphQL endpoint: <code>POST /graphql</code> with <code>Authorization: Bearer &lt;API key or session token&gt;</code>.</li>
${explorer}
<li>Inbound webhooks: <code>POST /webhooks/in/{connectionId}</code>.</li>
<li>Health: <a href="/readyz">/readyz</a>, metrics: <a href="/metrics">/metrics</a>.</li>
<li><a href="/demo">Widget demo</a>: the demo org's website widget, embedded by <code>/widget/loader.js</code>.</li>
${facts.helpCenterPath ? `<li><a href="${escape(facts.helpCenterPath)}">Help center</a>: the demo org's public help pages.</li>` : ''}
</ul>
<h2>Documentation</h2>
<p>In the repository:</p>
<ul>
${DOCS.map(([file, what]) => `<li><code>${file}</code>: ${what}</li>`).join('\n')}
</ul>
</body>
</html>
`;
}
