/**
 * widget-stencil/nginx.conf (the widget image's server) against the embedded stack's /widget route, the one source of
 * the cache rules (services/stack/src/widget-assets.ts, decision 0110): the same Cache-Control per kind of file, the
 * same "content-hashed" test as widget-stencil/scripts/assets.mjs, the same public headers on every file, the
 * manifest kept private, and the /healthz and /readyz the chart's probes call on the port its Service targets.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { parse } from 'yaml';
import { WIDGET_ASSET_CACHE_CONTROL as CACHE_CONTROL } from '@svc/stack';
import { STATIC_DEPLOYABLES, chartDir, repoRoot } from './support';

interface Directive {
  name: string;
  args: string[];
  block?: Directive[];
}

/** nginx's configuration syntax: directives `name args;` and blocks `name args { … }`, `#` comments, quoted args. */
export function parseNginx(text: string): Directive[] {
  const tokens = [...text.matchAll(/#[^\n]*|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([{};])|([^\s{};"'#]+)/g)]
    .filter((m) => !m[0].startsWith('#'))
    .map((m) => ({ value: m[1] ?? m[2] ?? m[3] ?? m[4]!, punct: m[3] !== undefined }));
  let at = 0;
  const block = (): Directive[] => {
    const out: Directive[] = [];
    while (at < tokens.length) {
      const first = tokens[at]!;
      if (first.punct && first.value === '}') {
        at += 1;
        return out;
      }
      const words: string[] = [];
      while (at < tokens.length && !tokens[at]!.punct) words.push(tokens[at++]!.value);
      const end = tokens[at++];
      if (!end || words.length === 0) throw new Error(`nginx.conf: unexpected ${end?.value ?? 'end of file'}`);
      const directive: Directive = { name: words[0]!, args: words.slice(1) };
      if (end.value === '{') directive.block = block();
      else if (end.value !== ';') throw new Error(`nginx.conf: unexpected ${end.value} after ${words.join(' ')}`);
      out.push(directive);
    }
    return out;
  };
  return block();
}

const widget = STATIC_DEPLOYABLES.find((d) => d.key === 'widget')!;
const conf = () => parseNginx(fs.readFileSync(path.join(repoRoot, widget.folder, 'nginx.conf'), 'utf8'));
const server = () => {
  const servers = conf().filter((d) => d.name === 'server');
  expect(servers).to.have.length(1);
  return servers[0]!.block!;
};
/** Every location, nested ones included, by its arguments joined (`= /widget/loader.js`, `~ ^…$`). */
function locations(directives: Directive[]): Map<string, Directive[]> {
  const found = new Map<string, Directive[]>();
  for (const d of directives) {
    if (d.name !== 'location') continue;
    found.set(d.args.join(' '), d.block!);
    for (const [key, body] of locations(d.block!)) found.set(key, body);
  }
  return found;
}
function location(key: string): Directive[] {
  const body = locations(server()).get(key);
  expect(body, `nginx.conf has location ${key}`).to.not.equal(undefined);
  return body!;
}
/** add_header name -> value of one location (nginx adds only the innermost level's add_header set). */
function headers(body: Directive[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of body.filter((x) => x.name === 'add_header')) {
    expect(d.args.at(-1), `add_header ${d.args[0]} also on errors and 304s`).to.equal('always');
    out[d.args[0]!.toLowerCase()] = d.args[1]!;
  }
  return out;
}
const PUBLIC_HEADERS = {
  'x-content-type-options': 'nosniff',
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
};

describe('deploy: widget-stencil/nginx.conf agrees with the embedded stack (decision 0110)', () => {
  const hashedKey = () => [...locations(server()).keys()].find((k) => k.startsWith('~ '))!;

  it('parses the configuration (and rejects a broken one)', () => {
    expect(server().some((d) => d.name === 'location')).to.equal(true);
    expect(() => parseNginx('server { listen 8080 }')).to.throw(/unexpected/);
  });

  it("listens on the port of the chart's Service, with ETags", () => {
    const values = parse(fs.readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as {
      services: Record<string, { ports: { http: number } }>;
    };
    const listen = server().find((d) => d.name === 'listen');
    expect(listen?.args).to.deep.equal([String(values.services[widget.key]!.ports.http)]);
    expect(server().find((d) => d.name === 'etag')?.args).to.deep.equal(['on']);
  });

  it("answers the chart's probes: /healthz and /readyz", () => {
    for (const probe of ['/healthz', '/readyz']) {
      expect(location(`= ${probe}`).find((d) => d.name === 'return')?.args[0]).to.equal('200');
    }
  });

  it('widget.js and every other stable name: the stack\'s "other" rule', () => {
    expect(headers(location('/widget/'))).to.deep.equal({ ...PUBLIC_HEADERS, 'cache-control': CACHE_CONTROL.other });
  });

  it("loader.js: the stack's loader.js rule", () => {
    expect(headers(location('= /widget/loader.js'))).to.deep.equal({
      ...PUBLIC_HEADERS,
      'cache-control': CACHE_CONTROL['loader.js'],
    });
  });

  it("content-hashed names: the stack's immutable rule, for exactly the names assets.mjs calls content-hashed", async () => {
    const key = hashedKey();
    expect(key, 'a regex location for the hashed names').to.be.a('string');
    expect(headers(location(key))).to.deep.equal({ ...PUBLIC_HEADERS, 'cache-control': CACHE_CONTROL.immutable });
    const assets = (await import(pathToFileURL(path.join(repoRoot, widget.folder, 'scripts', 'assets.mjs')).href)) as {
      isContentHashed: (file: string) => boolean;
    };
    const pattern = new RegExp(key.slice(2).replace(/^"|"$/g, ''));
    const manifest = path.join(repoRoot, widget.folder, 'dist', 'widget', 'asset-manifest.json');
    const built = fs.existsSync(manifest)
      ? Object.keys((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { files: Record<string, unknown> }).files)
      : [];
    const names = [
      'loader.js',
      'widget.js',
      'chunk-5XK2QZ7A.js',
      'en.5xk2qz7a.js',
      'p-0a1b2c3d.entry.js',
      'svc-widget.js',
      'chunk-short.js',
      'chunk-AB12CD3.js',
      'en.abcdef1.js',
      'assets/ar-9F8E7D6C.js',
      ...built,
    ];
    for (const name of names) {
      expect(pattern.test(`/widget/${name}`), name).to.equal(assets.isContentHashed(name));
    }
    expect(names.filter((n) => assets.isContentHashed(n))).to.not.deep.equal([]);
  });

  it('keeps asset-manifest.json private (the stack serves only the files it lists) and serves nothing else', () => {
    expect(location('= /widget/asset-manifest.json').find((d) => d.name === 'return')?.args).to.deep.equal(['404']);
    expect(location('/').find((d) => d.name === 'return')?.args).to.deep.equal(['404']);
  });
});
