import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { describe, it } from 'mocha';
import { isContentHashed } from '../assets.mjs';
import { firstPaintFiles } from '../first-paint.mjs';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

describe('size.mjs: firstPaintFiles (what the widget loads before its first paint)', () => {
  it('follows static imports and re-exports transitively, then the default locale chunk and its imports', async () => {
    const { files, dynamic } = await firstPaintFiles(path.join(fixtures, 'widget'), 'widget.js');
    expect(files).to.deep.equal([
      'widget.js',
      'chunk-AAAAAAAA.js',
      'chunk-BBBBBBBB.js',
      'en-CCCCCCCC.js',
      'strings-EEEEEEEE.js',
    ]);
    // Another locale and what only it imports are loaded later; an import() inside a string is no import.
    expect(dynamic).to.deep.equal(['fr-DDDDDDDD.js']);
  });

  it("finds a locale's chunk by the key it is loaded under when chunk names are only hashes", async () => {
    const walk = (locale) => firstPaintFiles(path.join(fixtures, 'keyed'), 'widget.js', locale);
    expect((await walk('en')).files).to.deep.equal(['widget.js', 'chunk.AAAAAAAA.js']);
    expect((await walk('pt-BR')).files).to.deep.equal(['widget.js', 'chunk.BBBBBBBB.js']);
  });

  it('takes the locale it is given', async () => {
    const { files } = await firstPaintFiles(path.join(fixtures, 'widget'), 'widget.js', 'fr');
    expect(files.slice(3)).to.deep.equal(['fr-DDDDDDDD.js', 'chunk-FFFFFFFF.js']);
  });

  it('fails when a static import is missing, or no lazy chunk is the locale', async () => {
    const failure = (locale) =>
      firstPaintFiles(path.join(fixtures, 'no-locale'), 'widget.js', locale).then(
        () => 'resolved',
        (error) => error.message,
      );
    expect(await failure('fr')).to.equal('chunk-AAAAAAAA.js: missing (imported before the first paint)');
    const missingEntry = await firstPaintFiles(path.join(fixtures, 'widget'), 'nope.js').catch((e) => e.message);
    expect(missingEntry).to.equal('nope.js: missing (imported before the first paint)');
  });
});

describe('assets.mjs: isContentHashed', () => {
  it('knows esbuild and Stencil hashes from stable names', () => {
    const names = ['loader.js', 'widget.js', 'chunk-5XK2QZ7A.js', 'en-5XK2QZ7A.js', 'p-1a2b3c4d.js', 'svc-messages.js'];
    expect(names.filter(isContentHashed)).to.deep.equal(['chunk-5XK2QZ7A.js', 'en-5XK2QZ7A.js', 'p-1a2b3c4d.js']);
  });
});
