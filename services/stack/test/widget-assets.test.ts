import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { CACHE_CONTROL, widgetAssetRoutes } from '../src/widget-assets';

describe('Stack.widgetAssetRoutes (/widget/*)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-widget-'));
  let server: Server;
  let url: string;

  before(async () => {
    const files = { 'loader.js': 'var a;', 'widget.js': 'import"./chunk-5XK2QZ7A.js";', 'chunk-5XK2QZ7A.js': '1;' };
    const manifest: Record<string, object> = {};
    for (const [name, body] of Object.entries(files)) {
      fs.writeFileSync(path.join(dir, name), body);
      manifest[name] = { size: body.length, sha256: 'ab'.repeat(32), immutable: name.startsWith('chunk-') };
    }
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'not listed');
    fs.writeFileSync(path.join(dir, 'asset-manifest.json'), JSON.stringify({ files: manifest }));
    server = new Koa().use(widgetAssetRoutes(dir).routes()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/widget`;
  });

  after(() => {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves content-hashed files for a year, immutable, as JavaScript, nosniff, to any origin', async () => {
    const response = await fetch(`${url}/chunk-5XK2QZ7A.js`);
    expect(response.status).to.equal(200);
    expect(await response.text()).to.equal('1;');
    expect(Object.fromEntries(response.headers)).to.include({
      'cache-control': 'public, max-age=31536000, immutable',
      'content-type': 'text/javascript; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
    });
  });

  it('serves loader.js for minutes and widget.js revalidated, both with an ETag answering 304', async () => {
    const loader = await fetch(`${url}/loader.js`);
    expect(loader.headers.get('cache-control')).to.equal(CACHE_CONTROL['loader.js']);
    const widget = await fetch(`${url}/widget.js`);
    expect(widget.headers.get('cache-control')).to.equal('no-cache');
    const etag = widget.headers.get('etag') ?? '';
    expect(etag).to.match(/^"[\w-]{27}"$/);
    // As a browser revalidates (fetch() alone would add `cache-control: no-cache`, which asks for the body).
    const again = await fetch(`${url}/widget.js`, { headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } });
    expect(again.status).to.equal(304);
    expect(await again.text()).to.equal('');
  });

  it('answers 404 for anything the manifest does not list, the manifest and paths out of the directory included', async () => {
    for (const file of ['secret.txt', 'asset-manifest.json', 'nope.js', '..%2Fsecret.txt', '']) {
      expect((await fetch(`${url}/${file}`)).status, file).to.equal(404);
    }
  });
});
