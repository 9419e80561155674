// `npm run build:widget`'s last step (after each package's build:browser): the CDN directory served at /widget/.
// Copies packages/core/www/** (widget.js and its content-hashed chunks) and packages/loader/www/** (loader.js) into
// widget-stencil/dist/widget/ and writes asset-manifest.json: for each file its size, sha256 and whether its name is
// content-hashed (immutable). The stack's /widget route and the nginx image serve by it (decision 0110).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MANIFEST, cdnDir, isContentHashed, listFiles, widgetStencil } from './assets.mjs';

const SOURCES = [
  { name: 'core', dir: path.join(widgetStencil, 'packages', 'core', 'www'), expect: 'widget.js' },
  { name: 'loader', dir: path.join(widgetStencil, 'packages', 'loader', 'www'), expect: 'loader.js' },
];

fs.rmSync(cdnDir, { recursive: true, force: true });
fs.mkdirSync(cdnDir, { recursive: true });
const files = {};
const missing = [];
for (const source of SOURCES) {
  if (!fs.existsSync(path.join(source.dir, source.expect))) {
    const why = fs.existsSync(path.dirname(source.dir))
      ? 'its build:browser did not write it'
      : `the ${source.name} package is not in this checkout`;
    missing.push(`${source.expect} (packages/${source.name}/www: ${why})`);
    continue;
  }
  for (const file of listFiles(source.dir)) {
    if (files[file]) throw new Error(`assemble: ${file} is built by two packages`);
    const target = path.join(cdnDir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(source.dir, file), target);
    const bytes = fs.readFileSync(target);
    files[file] = {
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      immutable: isContentHashed(file),
    };
  }
}
fs.writeFileSync(path.join(cdnDir, MANIFEST), JSON.stringify({ files }, null, 2) + '\n');
const where = path.relative(process.cwd(), cdnDir) || '.';
console.log(`assemble: ${Object.keys(files).length} files in ${where}`);
// Not a failure: a checkout without one package still builds the rest; size.mjs says what that leaves unmeasured.
for (const what of missing) console.warn(`assemble: MISSING ${what}; /widget/${what.split(' ')[0]} will answer 404`);
